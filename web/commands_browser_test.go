package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

type pageCommand struct {
	Text   string `json:"text"`
	Status *int   `json:"status"`
	Output string `json:"output"`
	Line   int    `json:"line"`
}

// TestBrowserCommands: a session whose shell marks its commands shows
// them in the page as blocks with their status, in the commands list;
// the page jumps between them and reads one command's output.
func TestBrowserCommands(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "cmds", "marks")
	ctx := page(t, bctx, r.pageURL("cmds", r.token(attachwire.RoleViewer, "cmds", "vera")))
	waitScreen(t, ctx, "$")
	for _, line := range []string{"make build", "fail tests", "ls; echo done"} {
		h.sess.WriteInput([]byte(line + "\n"))
	}
	var cmds []pageCommand
	testkit.EventuallyDescribe(t, "three commands ended in the page", func() bool {
		cmds = eval[[]pageCommand](t, ctx, `ptyhostViewer.commands()`)
		return len(cmds) == 3 && cmds[2].Status != nil
	}, func() string {
		return fmt.Sprintf("%+v, errors %q\npage:\n%s\nhost:\n%s", cmds, eval[[]string](t, ctx, `ptyhostViewer.commandErrors()`), pageScreen(t, ctx), h.screenText(t))
	})
	want := []struct {
		text   string
		status int
		output string
	}{
		{"make build", 0, "ran make build"},
		{"fail tests", 2, "FAIL: 2 tests\nsee above"},
		{"ls; echo done", 0, "ran ls; echo done"},
	}
	for i, w := range want {
		c := cmds[i]
		if c.Text != w.text || c.Status == nil || *c.Status != w.status || c.Output != w.output {
			t.Errorf("command %d: %+v (status %v), want %+v", i, c, c.Status, w)
		}
	}
	bar := eval[string](t, ctx, `document.getElementById('commands-bar').hidden ? '' : document.getElementById('commands-bar').innerText`)
	if !strings.Contains(bar, "commands 3") {
		t.Errorf("commands bar %q", bar)
	}
	// Each ended command is a block in the gutter, coloured by its status.
	var blocks []string
	testkit.EventuallyDescribe(t, "three blocks in the gutter", func() bool {
		blocks = eval[[]string](t, ctx, `Array.from(document.querySelectorAll('.cmd-block')).map(e => e.className)`)
		return len(blocks) == 3
	}, func() string {
		return fmt.Sprintf("%q; decorations %d, errors %q, html %s", blocks,
			eval[int](t, ctx, `document.querySelectorAll('.xterm-decoration').length`),
			eval[[]string](t, ctx, `ptyhostViewer.commandErrors()`),
			eval[string](t, ctx, `(document.querySelector('.xterm-decoration-container')||{outerHTML:'none'}).outerHTML.slice(0,500)`))
	})
	if !strings.Contains(blocks[1], "failed") || !strings.Contains(blocks[0], "ok") {
		t.Errorf("gutter blocks %q", blocks)
	}
	// The list: statuses shown, and a click on one jumps to it.
	items := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#command-list .cmd')).map(e =>
		e.querySelector('.cmd-status').textContent + ' ' + e.querySelector('.cmd-text').textContent)`)
	if len(items) != 3 || items[1] != "✗ 2 fail tests" || items[0] != "✓ make build" {
		t.Errorf("list %q", items)
	}
	eval[any](t, ctx, `ptyhostViewer.jumpCommand(-1), ptyhostViewer.jumpCommand(-1), null`)
	current := eval[string](t, ctx, `document.querySelector('#command-list .cmd.current .cmd-text').textContent`)
	if current != "fail tests" {
		t.Errorf("after two jumps back: at %q, want the second command", current)
	}
	eval[any](t, ctx, `document.getElementById('commands-button').click(), null`)
	saveScreenshot(t, ctx, "ptyhost-browser-commands.png")
}
