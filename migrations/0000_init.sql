CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`suspended_at` integer,
	`suspended_reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`mode` text NOT NULL,
	`hash` text NOT NULL,
	`start` text NOT NULL,
	`name` text,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`last_used_at` integer,
	`rotated_from_id` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "api_keys_mode" CHECK("api_keys"."mode" IN ('live','test'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `dataset_versions` (
	`id` integer PRIMARY KEY NOT NULL,
	`dataset` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`path` text NOT NULL,
	`rows` integer,
	`rejects` integer,
	`reject_samples` text,
	`files` text,
	`as_of` text,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	`activated_at` integer,
	`error` text,
	CONSTRAINT "dataset_versions_channel" CHECK("dataset_versions"."channel" IN ('live','sample')),
	CONSTRAINT "dataset_versions_status" CHECK("dataset_versions"."status" IN ('building','active','superseded','failed','deleted'))
);
--> statement-breakpoint
CREATE INDEX `dataset_versions_active` ON `dataset_versions` (`dataset`,`channel`,`status`);--> statement-breakpoint
CREATE TABLE `external_reviews` (
	`id` integer PRIMARY KEY NOT NULL,
	`dot_number` integer NOT NULL,
	`source` text NOT NULL,
	`overall_rating` real,
	`total_reviews` integer NOT NULL,
	`latest_review_date` text,
	`latest_review_text` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `external_reviews_source` ON `external_reviews` (`dot_number`,`source`);--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`acquired_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `quota_alerts` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`period` text NOT NULL,
	`kind` text NOT NULL,
	`used` integer NOT NULL,
	`quota_limit` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "quota_alerts_kind" CHECK("quota_alerts"."kind" IN ('threshold_80','exhausted'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quota_alerts_once` ON `quota_alerts` (`account_id`,`period`,`kind`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` integer PRIMARY KEY NOT NULL,
	`dot_number` integer NOT NULL,
	`stars` integer NOT NULL,
	`title` text,
	`body` text,
	`review_date` text NOT NULL,
	`experience_type` text NOT NULL,
	`author` text,
	`verified` integer DEFAULT true NOT NULL,
	`source` text NOT NULL,
	`external_id` text,
	`created_at` integer NOT NULL,
	CONSTRAINT "reviews_stars" CHECK("reviews"."stars" BETWEEN 1 AND 5)
);
--> statement-breakpoint
CREATE INDEX `reviews_dot` ON `reviews` (`dot_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_external` ON `reviews` (`source`,`external_id`);--> statement-breakpoint
CREATE TABLE `source_files` (
	`file_id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`path` text,
	`etag` text,
	`last_modified` text,
	`sha256` text,
	`bytes` integer,
	`checked_at` integer,
	`changed_at` integer
);
--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`plan` text NOT NULL,
	`interval` text NOT NULL,
	`status` text NOT NULL,
	`period_start` integer NOT NULL,
	`period_end` integer,
	`included_override` integer,
	`overage_mills_override` integer,
	`created_at` integer NOT NULL,
	`canceled_at` integer,
	`ended_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "subscriptions_plan" CHECK("subscriptions"."plan" IN ('free','starter','professional','scale','enterprise')),
	CONSTRAINT "subscriptions_interval" CHECK("subscriptions"."interval" IN ('none','monthly','yearly')),
	CONSTRAINT "subscriptions_status" CHECK("subscriptions"."status" IN ('active','canceled','past_due','none'))
);
--> statement-breakpoint
CREATE INDEX `subscriptions_account` ON `subscriptions` (`account_id`,`ended_at`);--> statement-breakpoint
CREATE TABLE `sync_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`dataset` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`version_id` integer,
	`error` text,
	`stats` text,
	CONSTRAINT "sync_runs_status" CHECK("sync_runs"."status" IN ('running','activated','unchanged','not_yet','failed','skipped'))
);
--> statement-breakpoint
CREATE INDEX `sync_runs_dataset` ON `sync_runs` (`dataset`,`started_at`);--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`account_id` integer NOT NULL,
	`period` text NOT NULL,
	`used` integer NOT NULL,
	`refused` integer DEFAULT 0 NOT NULL,
	`updated_at` integer,
	PRIMARY KEY(`account_id`, `period`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `watch_snapshots` (
	`dot_number` integer PRIMARY KEY NOT NULL,
	`facts` text NOT NULL,
	`version_key` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `watchlist` (
	`account_id` integer NOT NULL,
	`dot_number` integer NOT NULL,
	`note` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `dot_number`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `watchlist_dot` ON `watchlist` (`dot_number`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`delivery_id` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`first_attempt_at` integer,
	`last_attempt_at` integer,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `webhook_events`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "webhook_deliveries_status" CHECK("webhook_deliveries"."status" IN ('pending','delivering','succeeded','failed','abandoned'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_once` ON `webhook_deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`events` text,
	`status` text NOT NULL,
	`disabled_reason` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`disabled_at` integer,
	`removed_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "webhook_endpoints_status" CHECK("webhook_endpoints"."status" IN ('enabled','disabled'))
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_account` ON `webhook_endpoints` (`account_id`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`dispatched_at` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_events_pending` ON `webhook_events` (`dispatched_at`);