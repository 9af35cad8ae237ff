CREATE TABLE `contact_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`api_key_id` integer,
	`dot_number` integer NOT NULL,
	`channel` text NOT NULL,
	`sent_to` text NOT NULL,
	`code_hash` text NOT NULL,
	`salt` text NOT NULL,
	`tries` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`message_id` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`verified_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "contact_verifications_status" CHECK("contact_verifications"."status" IN ('pending','verified','locked'))
);
--> statement-breakpoint
CREATE INDEX `contact_verifications_dot` ON `contact_verifications` (`dot_number`,`created_at`);--> statement-breakpoint
CREATE INDEX `contact_verifications_account` ON `contact_verifications` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `mail_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`message_id` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`error` text,
	`response` text,
	`duration_ms` integer,
	FOREIGN KEY (`message_id`) REFERENCES `mail_messages`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `mail_attempts_message` ON `mail_attempts` (`message_id`);--> statement-breakpoint
CREATE TABLE `mail_cursors` (
	`source` text PRIMARY KEY NOT NULL,
	`position` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `mail_digest_items` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_digest_items_account` ON `mail_digest_items` (`account_id`);--> statement-breakpoint
CREATE TABLE `mail_messages` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer,
	`recipient_id` integer,
	`kind` text NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text NOT NULL,
	`unsubscribe_token` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`first_attempt_at` integer,
	`last_attempt_at` integer,
	`last_error` text,
	`last_response` text,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	CONSTRAINT "mail_messages_status" CHECK("mail_messages"."status" IN ('pending','sending','sent','failed','abandoned'))
);
--> statement-breakpoint
CREATE INDEX `mail_messages_due` ON `mail_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `mail_messages_account` ON `mail_messages` (`account_id`);--> statement-breakpoint
CREATE TABLE `mail_recipients` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`email` text NOT NULL,
	`kind` text NOT NULL,
	`unsubscribe_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`removed_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "mail_recipients_kind" CHECK("mail_recipients"."kind" IN ('quota','watchlist','verdicts'))
);
--> statement-breakpoint
CREATE INDEX `mail_recipients_account` ON `mail_recipients` (`account_id`,`kind`);--> statement-breakpoint
CREATE UNIQUE INDEX `mail_recipients_token` ON `mail_recipients` (`unsubscribe_token`);--> statement-breakpoint
CREATE TABLE `mail_suppressions` (
	`email` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
