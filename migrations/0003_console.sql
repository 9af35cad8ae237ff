CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`user_id` integer,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`account_id` integer,
	`target` text,
	`detail` text,
	`address` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `console_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`csrf_token` text NOT NULL,
	`address` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`flash` text,
	FOREIGN KEY (`user_id`) REFERENCES `console_users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `console_sessions_user` ON `console_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `console_users` (
	`id` integer PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`account_id` integer,
	`password_hash` text,
	`created_at` integer NOT NULL,
	`disabled_at` integer,
	`last_sign_in_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "console_users_role" CHECK("console_users"."role" IN ('admin','member')),
	CONSTRAINT "console_users_member_account" CHECK(("console_users"."role" = 'admin' AND "console_users"."account_id" IS NULL) OR ("console_users"."role" = 'member' AND "console_users"."account_id" IS NOT NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_users_email` ON `console_users` (`email`);--> statement-breakpoint
CREATE TABLE `password_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `console_users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `usage_daily` (
	`account_id` integer NOT NULL,
	`day` text NOT NULL,
	`used` integer NOT NULL,
	PRIMARY KEY(`account_id`, `day`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
