PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_sync_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`dataset` text NOT NULL,
	`trigger` text NOT NULL,
	`channel` text DEFAULT 'live' NOT NULL,
	`status` text NOT NULL,
	`holder` text,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`version_id` integer,
	`error` text,
	`stats` text,
	CONSTRAINT "sync_runs_status" CHECK("__new_sync_runs"."status" IN ('running','activated','unchanged','not_yet','failed','skipped','interrupted'))
);
--> statement-breakpoint
INSERT INTO `__new_sync_runs`("id", "dataset", "trigger", "status", "started_at", "finished_at", "version_id", "error", "stats") SELECT "id", "dataset", "trigger", "status", "started_at", "finished_at", "version_id", "error", "stats" FROM `sync_runs`;--> statement-breakpoint
DROP TABLE `sync_runs`;--> statement-breakpoint
ALTER TABLE `__new_sync_runs` RENAME TO `sync_runs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `sync_runs_dataset` ON `sync_runs` (`dataset`,`started_at`);--> statement-breakpoint
ALTER TABLE `leases` ADD `pid` integer;--> statement-breakpoint
ALTER TABLE `leases` ADD `host` text;--> statement-breakpoint
ALTER TABLE `leases` ADD `heartbeat_at` integer;