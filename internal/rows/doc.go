// Package rows is the panel's one read projection and one write gate
// over the game's tables. A Resource is a table as the panel serves it;
// its role variants (RoleViews, As) decide what each operator reads:
// visibility, masks, labels. Every feature that shows row values passes
// through the projection (Answer, Mask, Redact, SearchColumns); every
// feature that changes rows passes through the gate (RefuseWrite and the
// checks before the database sees a write).
//
// It depends on the vocabularies below it (authz, catalog, errbody,
// schema) and never on the engine or the root.
package rows
