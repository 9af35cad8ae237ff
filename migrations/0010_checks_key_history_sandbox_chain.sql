ALTER TABLE `check_signing_keys` ADD `fingerprint` text;--> statement-breakpoint
ALTER TABLE `check_signing_keys` ADD `introduction` text;--> statement-breakpoint
ALTER TABLE `check_signing_keys` ADD `introduction_signature` text;--> statement-breakpoint
ALTER TABLE `check_signing_keys` ADD `introduced_by` text;--> statement-breakpoint
-- rows made before sandbox checks had their own chain all stay in the live chain they were chained in
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_check_chain_anchors` (
	`account_id` integer NOT NULL,
	`chain` text DEFAULT 'live' NOT NULL,
	`seq` integer NOT NULL,
	`hash` text NOT NULL,
	`pruned` integer NOT NULL,
	`pruned_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `chain`)
);
--> statement-breakpoint
INSERT INTO `__new_check_chain_anchors`("account_id", "chain", "seq", "hash", "pruned", "pruned_at") SELECT "account_id", 'live', "seq", "hash", "pruned", "pruned_at" FROM `check_chain_anchors`;--> statement-breakpoint
DROP TABLE `check_chain_anchors`;--> statement-breakpoint
ALTER TABLE `__new_check_chain_anchors` RENAME TO `check_chain_anchors`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `scopes` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `check_policies` ADD `author` text;--> statement-breakpoint
CREATE TABLE `__new_checks` (
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
	`chain` text DEFAULT 'live' NOT NULL,
	CONSTRAINT "checks_kind" CHECK("__new_checks"."kind" IN ('check','override')),
	CONSTRAINT "checks_verdict" CHECK("__new_checks"."verdict" IN ('pass','review','fail')),
	CONSTRAINT "checks_chain" CHECK("__new_checks"."chain" IN ('live','test'))
);
--> statement-breakpoint
INSERT INTO `__new_checks`("seq", "id", "kind", "check_id", "account_id", "api_key_id", "dot_number", "reference", "verdict", "created_at", "document", "prev_hash", "hash", "signing_key_id", "signature", "chain") SELECT "seq", "id", "kind", "check_id", "account_id", "api_key_id", "dot_number", "reference", "verdict", "created_at", "document", "prev_hash", "hash", "signing_key_id", "signature", 'live' FROM `checks`;--> statement-breakpoint
DROP TABLE `checks`;--> statement-breakpoint
ALTER TABLE `__new_checks` RENAME TO `checks`;--> statement-breakpoint
CREATE UNIQUE INDEX `checks_id` ON `checks` (`id`);--> statement-breakpoint
CREATE INDEX `checks_account_seq` ON `checks` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `checks_account_dot` ON `checks` (`account_id`,`dot_number`,`created_at`);--> statement-breakpoint
CREATE INDEX `checks_account_reference` ON `checks` (`account_id`,`reference`);--> statement-breakpoint
CREATE INDEX `checks_check` ON `checks` (`check_id`);