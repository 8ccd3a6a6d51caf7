package relay

import "github.com/ptyhost/ptyhost/web"

// routeViewer serves the browser viewer: the page at
// /v1/rooms/<roomId>/view and its files under web.AssetPrefix, from
// cfg.Viewer or, when that is nil, the page built into package web. Both
// patterns are more specific than the attach endpoint's "/v1/rooms/", so
// the mux sends them here and everything else under a room to the attach
// endpoint (which answers 404 for sub-paths, as before).
func (rl *Relay) routeViewer() {
	h := rl.cfg.Viewer
	if h == nil {
		h = web.Handler()
	}
	rl.mux.Handle(web.PagePattern, h)
	rl.mux.Handle(web.AssetPattern, h)
}
