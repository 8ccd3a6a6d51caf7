package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptyhost/ptyhost/internal/share"
)

// writeShortLinks prints a relay in issuer mode's links: one watch and
// one drive link, each for as many people as the sharer gives it to,
// good in a browser and, given to attach privately, in a terminal.
func writeShortLinks(w io.Writer, l share.Links, prog string, rows int) {
	fmt.Fprintf(w, "ptyhost share: room %s on the relay %s\n\n", l.Room, l.AttachURL)
	fmt.Fprintf(w, "Watch link:\n  %s\n", l.WatchLink)
	fmt.Fprintf(w, "Drive link (whoever holds it may type):\n  %s\n\n", l.DriveLink)
	fmt.Fprintf(w, "In a terminal: PTYHOST_LINK='<link>' %s attach [--drive] [--name NAME]\n", prog)
	fmt.Fprintf(w, "Each link admits everyone who has it until %s; people join under a name of their choosing.\n",
		l.Expires.Local().Format("2006-01-02 15:04 MST"))
	fmt.Fprint(w, "(These lines stay in your terminal's scrollback.)\n")
	if rows > 0 {
		io.WriteString(w, strings.Repeat("\n", rows))
	}
}
