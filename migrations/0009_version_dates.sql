ALTER TABLE `dataset_versions` ADD `imported_at` integer;--> statement-breakpoint
ALTER TABLE `dataset_versions` ADD `confirmed_at` integer;--> statement-breakpoint
UPDATE `dataset_versions` SET `imported_at` = `activated_at`, `confirmed_at` = `activated_at` WHERE `activated_at` IS NOT NULL;