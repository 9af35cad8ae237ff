-- A counter bumped by every write that can change who a key belongs to or whether it may call:
-- the server caches resolved callers and drops the cache when this number moves, so a key revoked
-- by the CLI in another process fails on the very next request. last_used_at updates do not bump it.
CREATE TABLE `auth_epoch` (`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1), `epoch` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `auth_epoch` (`id`, `epoch`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_keys_insert` AFTER INSERT ON `api_keys` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_keys_update` AFTER UPDATE OF `account_id`, `mode`, `hash`, `expires_at`, `revoked_at` ON `api_keys` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_keys_delete` AFTER DELETE ON `api_keys` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_accounts_insert` AFTER INSERT ON `accounts` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_accounts_update` AFTER UPDATE ON `accounts` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_accounts_delete` AFTER DELETE ON `accounts` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_subscriptions_insert` AFTER INSERT ON `subscriptions` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_subscriptions_update` AFTER UPDATE ON `subscriptions` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `auth_epoch_subscriptions_delete` AFTER DELETE ON `subscriptions` BEGIN UPDATE `auth_epoch` SET `epoch` = `epoch` + 1; END;
