package admin

import "embed"

// uiDist is the built single-page UI (ui/dist, committed; rebuild it with
// `cd ui && npm ci && npm run build`), handed to the engine by New.
//
//go:embed all:ui/dist
var uiDist embed.FS
