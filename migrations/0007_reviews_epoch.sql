-- A counter bumped by every write to the reviews: each connection that answers lookups holds the
-- USDOTs with any verified review or external aggregate (most companies have none, and their
-- reviews block is then known without a query) and reloads them when this number moves, so a
-- review stored by the CLI in another process shows on the very next lookup.
CREATE TABLE `reviews_epoch` (`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1), `epoch` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `reviews_epoch` (`id`, `epoch`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `reviews_epoch_reviews_insert` AFTER INSERT ON `reviews` BEGIN UPDATE `reviews_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `reviews_epoch_reviews_update` AFTER UPDATE ON `reviews` BEGIN UPDATE `reviews_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `reviews_epoch_reviews_delete` AFTER DELETE ON `reviews` BEGIN UPDATE `reviews_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `reviews_epoch_external_insert` AFTER INSERT ON `external_reviews` BEGIN UPDATE `reviews_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `reviews_epoch_external_update` AFTER UPDATE ON `external_reviews` BEGIN UPDATE `reviews_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `reviews_epoch_external_delete` AFTER DELETE ON `external_reviews` BEGIN UPDATE `reviews_epoch` SET `epoch` = `epoch` + 1; END;
