ALTER TABLE `check_signing_keys` ADD `fingerprint` text;--> statement-breakpoint
ALTER TABLE `check_signing_keys` ADD `introduction` text;--> statement-breakpoint
ALTER TABLE `check_signing_keys` ADD `introduction_signature` text;--> statement-breakpoint
ALTER TABLE `check_signing_keys` ADD `introduced_by` text;