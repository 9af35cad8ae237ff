CREATE TABLE `onboarding_rows` (
	`onboarding_id` text NOT NULL,
	`row` integer NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`reference` text,
	`status` text NOT NULL,
	`claimed_at` integer,
	`check_id` text,
	`verdict` text,
	`reasons` text,
	`message` text,
	PRIMARY KEY(`onboarding_id`, `row`),
	CONSTRAINT "onboarding_rows_kind" CHECK("onboarding_rows"."kind" IN ('dot','mc')),
	CONSTRAINT "onboarding_rows_status_check" CHECK("onboarding_rows"."status" IN ('pending','claimed','checked','not_found','error'))
);
--> statement-breakpoint
CREATE INDEX `onboarding_rows_status` ON `onboarding_rows` (`onboarding_id`,`status`);--> statement-breakpoint
CREATE TABLE `onboardings` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`api_key_id` integer,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`file_name` text,
	`rows` integer NOT NULL,
	`rejected` text NOT NULL,
	`error` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	CONSTRAINT "onboardings_status_check" CHECK("onboardings"."status" IN ('draft','queued','running','done','failed')),
	CONSTRAINT "onboardings_mode" CHECK("onboardings"."mode" IN ('live','test'))
);
--> statement-breakpoint
CREATE INDEX `onboardings_account` ON `onboardings` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `onboardings_status` ON `onboardings` (`status`);