CREATE TABLE `check_anchor_settings` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`webhook` integer DEFAULT false NOT NULL,
	`tsa_url` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `check_anchors` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`chain` text NOT NULL,
	`seq` integer NOT NULL,
	`head_hash` text NOT NULL,
	`anchored_at` integer NOT NULL,
	`destination` text NOT NULL,
	`statement` text NOT NULL,
	`key_id` text NOT NULL,
	`signature` text NOT NULL,
	`status` text NOT NULL,
	`event_id` text,
	`tsa_url` text,
	`tsa_response` text,
	`tsa_time` text,
	`error` text,
	CONSTRAINT "check_anchors_destination" CHECK("check_anchors"."destination" IN ('webhook','tsa')),
	CONSTRAINT "check_anchors_status" CHECK("check_anchors"."status" IN ('sent','failed'))
);
--> statement-breakpoint
CREATE INDEX `check_anchors_account` ON `check_anchors` (`account_id`,`chain`,`seq`);