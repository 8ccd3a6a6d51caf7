package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ptyhost/ptyhost/termdriver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// connect serves srv over in-memory transports and returns a client
// session; both end with the test, and the server's Run must return.
func connect(t *testing.T, srv *Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return")
		}
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// fakeSharer returns links naming the session.
type fakeSharer struct{}

func (fakeSharer) Share(_ context.Context, s *termdriver.Session, req ShareRequest) (ShareLinks, error) {
	l := ShareLinks{Watch: "http://127.0.0.1/watch/" + s.ID()}
	if req.Drive {
		l.Drive = "http://127.0.0.1/drive/" + s.ID()
	}
	return l, nil
}

func TestShareSeam(t *testing.T) {
	cs := connect(t, New(Options{Sharer: fakeSharer{}}))
	var st startOut
	if res := call(t, cs, "start", map[string]any{"command": "sleep", "args": []string{"60"}}, &st); res.IsError {
		t.Fatal(text(res))
	}
	var links ShareLinks
	res := call(t, cs, "share", map[string]any{"id": st.ID, "drive": true}, &links)
	if res.IsError || links.Watch != "http://127.0.0.1/watch/"+st.ID || links.Drive == "" {
		t.Errorf("share: %s %+v", text(res), links)
	}
	if res := call(t, cs, "share", map[string]any{"id": "s42"}, nil); !res.IsError {
		t.Error("shared an unknown session")
	}
}

func TestStopWhenClientLeaves(t *testing.T) {
	srv := New(Options{})
	cs := connect(t, srv)
	var st startOut
	if res := call(t, cs, "start", map[string]any{"command": "sleep", "args": []string{"60"}}, &st); res.IsError {
		t.Fatal(text(res))
	}
	s, err := srv.Driver().Session(st.ID)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	select {
	case <-s.Host().Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the session outlived its client")
	}
}

func TestViewRendering(t *testing.T) {
	srv := New(Options{})
	scr := termdriver.Screen{Seq: 9, Cols: 10, Rows: 3, Lines: []string{"a", "b", ""}, CursorRow: 1, CursorCol: 1, CursorVisible: true}
	out, txt := srv.view("s1", viewIn{}, &scr)
	if txt != "[s1 seq 9, 10x3]\na\nb▌" || out.Text != "a\nb▌" || out.CursorRow != 2 || out.CursorCol != 2 {
		t.Errorf("whole: %q %+v", txt, out)
	}
	if got := srv.screenOptions("s1", viewIn{}).Since; got != 9 {
		t.Errorf("last sent %d, want 9", got)
	}
	if got := srv.screenOptions("s1", viewIn{Full: true}).Since; got != 0 {
		t.Errorf("full compares with %d", got)
	}
	same := scr
	same.Seq, same.Base, same.Changed = 10, 9, []int{}
	if out, txt := srv.view("s1", viewIn{}, &same); txt != "[s1 seq 10, 10x3, unchanged since seq 9]" || out.Text != "" {
		t.Errorf("unchanged: %q %+v", txt, out)
	}
	diff := scr
	diff.Seq, diff.Base, diff.Changed = 11, 9, []int{0}
	diff.Lines = []string{"A", "b", ""}
	if out, txt := srv.view("s1", viewIn{Since: 9}, &diff); txt != "[s1 seq 11, 10x3, rows changed since seq 9]\n1│A" || len(out.Changed) != 1 {
		t.Errorf("diff: %q %+v", txt, out)
	}
	// Without since, a changed screen is sent whole.
	if _, txt := srv.view("s1", viewIn{}, &diff); !strings.HasSuffix(txt, "]\nA\nb▌") {
		t.Errorf("changed, no since: %q", txt)
	}
}
