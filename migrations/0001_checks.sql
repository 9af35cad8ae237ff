CREATE TABLE `check_chain_anchors` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`hash` text NOT NULL,
	`pruned` integer NOT NULL,
	`pruned_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `check_policies` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`version` integer NOT NULL,
	`document` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `check_policies_version` ON `check_policies` (`account_id`,`version`);--> statement-breakpoint
CREATE TABLE `check_signing_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`public_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`retired_at` integer
);
--> statement-breakpoint
CREATE TABLE `checks` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`check_id` text NOT NULL,
	`account_id` integer NOT NULL,
	`api_key_id` integer,
	`dot_number` integer NOT NULL,
	`reference` text,
	`verdict` text NOT NULL,
	`created_at` integer NOT NULL,
	`document` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL,
	`signing_key_id` text NOT NULL,
	`signature` text NOT NULL,
	CONSTRAINT "checks_kind" CHECK("checks"."kind" IN ('check','override')),
	CONSTRAINT "checks_verdict" CHECK("checks"."verdict" IN ('pass','review','fail'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `checks_id` ON `checks` (`id`);--> statement-breakpoint
CREATE INDEX `checks_account_seq` ON `checks` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `checks_account_dot` ON `checks` (`account_id`,`dot_number`,`created_at`);--> statement-breakpoint
CREATE INDEX `checks_account_reference` ON `checks` (`account_id`,`reference`);--> statement-breakpoint
CREATE INDEX `checks_check` ON `checks` (`check_id`);