-- A counter bumped by every change to the identity history (identity_changes, identity_comparisons):
-- each connection that assembles records holds what the history says of every company (which
-- USDOTs have any change, the date the history runs from) and the history's fields of cached
-- records, and reads them again only when this number moves, so a comparison or a pruning made
-- by any process shows on the very next lookup. Changes are only ever inserted with the comparison
-- that found them, in one transaction (identity/history.ts): the comparison's insert bumps the
-- counter once, rather than a trigger on every one of thousands of changes.
CREATE TABLE `identity_history_epoch` (`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1), `epoch` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `identity_history_epoch` (`id`, `epoch`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `identity_history_epoch_changes_update` AFTER UPDATE ON `identity_changes` BEGIN UPDATE `identity_history_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `identity_history_epoch_changes_delete` AFTER DELETE ON `identity_changes` BEGIN UPDATE `identity_history_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `identity_history_epoch_comparisons_insert` AFTER INSERT ON `identity_comparisons` BEGIN UPDATE `identity_history_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `identity_history_epoch_comparisons_update` AFTER UPDATE ON `identity_comparisons` BEGIN UPDATE `identity_history_epoch` SET `epoch` = `epoch` + 1; END;
--> statement-breakpoint
CREATE TRIGGER `identity_history_epoch_comparisons_delete` AFTER DELETE ON `identity_comparisons` BEGIN UPDATE `identity_history_epoch` SET `epoch` = `epoch` + 1; END;
