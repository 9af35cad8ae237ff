CREATE TABLE `blocklist_entries` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`type` text NOT NULL,
	`value` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL,
	`created_by` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "blocklist_entries_type" CHECK("blocklist_entries"."type" IN ('usdot','mc','phone','email','vin','officer','address'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blocklist_entries_account_value` ON `blocklist_entries` (`account_id`,`type`,`value`);--> statement-breakpoint
CREATE INDEX `blocklist_entries_value` ON `blocklist_entries` (`type`,`value`);--> statement-breakpoint
CREATE TABLE `identity_changes` (
	`id` integer PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`dot_number` integer NOT NULL,
	`field` text NOT NULL,
	`from_value` text,
	`to_value` text,
	`seen_at` text NOT NULL,
	`comparison_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `identity_changes_dot` ON `identity_changes` (`channel`,`dot_number`,`seen_at`,`id`);--> statement-breakpoint
CREATE INDEX `identity_changes_seen` ON `identity_changes` (`seen_at`);--> statement-breakpoint
CREATE TABLE `identity_comparisons` (
	`id` integer PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`from_version` integer,
	`to_version` integer NOT NULL,
	`from_as_of` text,
	`to_as_of` text NOT NULL,
	`changed` integer NOT NULL,
	`added` integer NOT NULL,
	`removed` integer NOT NULL,
	`changes` integer NOT NULL,
	`seconds` real NOT NULL,
	`compared_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `identity_comparisons_channel` ON `identity_comparisons` (`channel`,`id`);