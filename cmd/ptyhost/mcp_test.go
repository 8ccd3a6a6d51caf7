package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost/internal/testkit"
)

// mcpClient runs `ptyhost mcp` and connects the go-sdk's client to it
// over its stdin and stdout; the session is closed when the test ends.
func mcpClient(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(ptyhostBin, append([]string{"mcp"}, args...)...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ptyhost-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to ptyhost mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool, failing the test on a protocol error (a tool
// error is a result). When the call succeeded and out is not nil, the
// structured result is decoded into it.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured result %s: %v", name, b, err)
		}
	}
	return res
}

// resultText returns the text content of a result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mustCall is callTool that fails the test on a tool error.
func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) string {
	t.Helper()
	res := callTool(t, cs, name, args, out)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, resultText(res))
	}
	return resultText(res)
}

type mcpScreen struct {
	Seq            uint64 `json:"seq"`
	Text           string `json:"text"`
	UnchangedSince uint64 `json:"unchanged_since"`
	ChangedSince   uint64 `json:"changed_since"`
	Changed        []struct {
		Row  int    `json:"row"`
		Text string `json:"text"`
	} `json:"changed"`
	Exited   bool `json:"exited"`
	ExitCode *int `json:"exit_code"`
}

type mcpWait struct {
	Reason string    `json:"reason"`
	Match  string    `json:"match"`
	Screen mcpScreen `json:"screen"`
}

type mcpStarted struct {
	ID  string `json:"id"`
	PID int    `json:"pid"`
}

// mcpWaitFor waits for pattern in session id, failing the test unless it
// matched.
func mcpWaitFor(t *testing.T, cs *mcp.ClientSession, id, pattern string) mcpWait {
	t.Helper()
	var w mcpWait
	text := mustCall(t, cs, "wait", map[string]any{"id": id, "pattern": pattern, "timeout_ms": testkit.Deadline.Milliseconds()}, &w)
	if w.Reason != "match" {
		t.Fatalf("waiting for %q in %s: %s\n%s", pattern, id, w.Reason, text)
	}
	return w
}

// helperArgs starts this test binary as a helper program in mode.
func helperArgs(t *testing.T, mode string, extra map[string]any) map[string]any {
	args := map[string]any{
		"command": self(t),
		"env":     map[string]string{helperEnv: mode, "GORACE": "atexit_sleep_ms=0"},
		"cols":    60, "rows": 8,
	}
	for k, v := range extra {
		args[k] = v
	}
	return args
}

func TestMCPListTools(t *testing.T) {
	cs := mcpClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"start": {"command"}, "screen": {"id"}, "type": {"id"}, "wait": {"id"},
		"resize": {"id", "cols", "rows"}, "stop": {"id"}, "list": nil, "output": {"id"}, "share": {"id"},
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Type       string                     `json:"type"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil || s.Type != "object" {
			t.Errorf("%s: input schema %s", tool.Name, schema)
			continue
		}
		if fmt.Sprint(s.Required) != fmt.Sprint(want[tool.Name]) && !(len(s.Required) == 0 && want[tool.Name] == nil) {
			t.Errorf("%s requires %v, want %v", tool.Name, s.Required, want[tool.Name])
		}
		for name, p := range s.Properties {
			if !strings.Contains(string(p), `"description"`) && name != "cols" && name != "rows" {
				t.Errorf("%s.%s has no description: %s", tool.Name, name, p)
			}
		}
		if tool.Name == "start" && !strings.Contains(string(schema), `"maximum":1024`) {
			t.Errorf("start's cols are not bounded: %s", schema)
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("tool %s missing", name)
		}
	}
}

func TestMCPPython(t *testing.T) {
	python := requireTool(t, "python3")
	cs := mcpClient(t)
	var st mcpStarted
	mustCall(t, cs, "start", map[string]any{"command": python, "args": []string{"-q"}, "env": map[string]string{"PYTHON_BASIC_REPL": "1"}}, &st)
	if st.ID == "" || st.PID == 0 {
		t.Fatalf("start returned %+v", st)
	}
	prompt := mcpWaitFor(t, cs, st.ID, `^>>>$`)
	if !strings.Contains(prompt.Screen.Text, ">>> ▌") {
		t.Errorf("cursor not marked after the prompt: %q", prompt.Screen.Text)
	}
	// The screen was just sent: asking again costs one line.
	var again mcpScreen
	text := mustCall(t, cs, "screen", map[string]any{"id": st.ID}, &again)
	if again.UnchangedSince != prompt.Screen.Seq || again.Text != "" || strings.Count(text, "\n") != 0 {
		t.Errorf("unchanged screen sent again: %+v\n%s", again, text)
	}
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "print(6*7)", "keys": []string{"Enter"}}, nil)
	answer := mcpWaitFor(t, cs, st.ID, `^42$`)
	if answer.Match != "42" {
		t.Errorf("match %q", answer.Match)
	}
	// Only the rows changed since the prompt, when asked.
	var diff mcpScreen
	mustCall(t, cs, "screen", map[string]any{"id": st.ID, "since": prompt.Screen.Seq}, &diff)
	if diff.ChangedSince != prompt.Screen.Seq || len(diff.Changed) == 0 || diff.Text != "" {
		t.Errorf("diff %+v", diff)
	}
	var full mcpScreen
	mustCall(t, cs, "screen", map[string]any{"id": st.ID, "full": true}, &full)
	if !strings.Contains(full.Text, "print(6*7)\n42\n>>> ▌") {
		t.Errorf("full screen %q", full.Text)
	}
	// Output far past the screen and its scrollback is in the log.
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "for i in range(3000): print('n', i)", "keys": []string{"Enter", "Enter"}}, nil)
	mcpWaitFor(t, cs, st.ID, `^n 2999$`)
	var log strings.Builder
	for {
		var out struct {
			Text string `json:"text"`
			More bool   `json:"more"`
		}
		mustCall(t, cs, "output", map[string]any{"id": st.ID, "max_bytes": 8192}, &out)
		log.WriteString(out.Text)
		if !out.More {
			break
		}
	}
	if !strings.Contains(log.String(), "\nn 0\nn 1\n") || !strings.Contains(log.String(), "\nn 2999\n") || strings.Contains(log.String(), "\x1b") {
		t.Errorf("output log %d bytes: %.200q … %.200q", log.Len(), log.String(), log.String()[max(0, log.Len()-200):])
	}
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "keys": []string{"C-d"}}, nil)
	var end mcpWait
	mustCall(t, cs, "wait", map[string]any{"id": st.ID, "timeout_ms": testkit.Deadline.Milliseconds()}, &end)
	if end.Reason != "exit" || !end.Screen.Exited || end.Screen.ExitCode == nil || *end.Screen.ExitCode != 0 {
		t.Errorf("after C-d: %+v", end)
	}
	res := callTool(t, cs, "type", map[string]any{"id": st.ID, "text": "x"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "has exited") {
		t.Errorf("typing into an exited session: %s", resultText(res))
	}
	mustCall(t, cs, "stop", map[string]any{"id": st.ID}, nil)
}

func TestMCPVim(t *testing.T) {
	vim := requireTool(t, "vim")
	cs := mcpClient(t)
	dir := t.TempDir()
	var st mcpStarted
	mustCall(t, cs, "start", map[string]any{
		"command": vim, "args": []string{"-u", "NONE", "-i", "NONE", "-n", "-N", "notes.txt"},
		"cwd": dir, "env": map[string]string{"HOME": dir}, "cols": 80, "rows": 24,
	}, &st)
	mcpWaitFor(t, cs, st.ID, `"notes.txt"`)
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "ihello from an agent", "keys": []string{"Enter", "Tab", "x", "Esc"}}, nil)
	mcpWaitFor(t, cs, st.ID, `^\s+x$`)
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": ":wq", "keys": []string{"Enter"}}, nil)
	var end mcpWait
	mustCall(t, cs, "wait", map[string]any{"id": st.ID, "timeout_ms": testkit.Deadline.Milliseconds()}, &end)
	if end.Reason != "exit" {
		t.Fatalf("vim did not exit: %+v", end)
	}
	b, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "hello from an agent\n\tx\n" {
		t.Errorf("file holds %q", got)
	}
}

func TestMCPWaitTimeout(t *testing.T) {
	cs := mcpClient(t)
	var st mcpStarted
	mustCall(t, cs, "start", helperArgs(t, "prompt", nil), &st)
	mcpWaitFor(t, cs, st.ID, `^ready>$`)
	var w mcpWait
	text := mustCall(t, cs, "wait", map[string]any{"id": st.ID, "pattern": "never", "timeout_ms": 100}, &w)
	if w.Reason != "timeout" || w.Screen.UnchangedSince == 0 || !strings.HasPrefix(text, "timeout after ") {
		t.Errorf("timeout: %+v\n%s", w, text)
	}
	mustCall(t, cs, "wait", map[string]any{"id": st.ID, "pattern": "never", "timeout_ms": 100, "full": true}, &w)
	if w.Reason != "timeout" || w.Screen.Text != "ready> ▌" {
		t.Errorf("timeout, full screen: %+v", w)
	}
	mustCall(t, cs, "wait", map[string]any{"id": st.ID, "quiet_ms": 100}, &w)
	if w.Reason != "quiet" {
		t.Errorf("quiet: %+v", w)
	}
}

func TestMCPBadArguments(t *testing.T) {
	cs := mcpClient(t)
	var st mcpStarted
	mustCall(t, cs, "start", helperArgs(t, "prompt", nil), &st)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"empty command", "start", map[string]any{"command": ""}, "command is empty"},
		{"no command", "start", map[string]any{}, "command"},
		{"not found", "start", map[string]any{"command": "no-such-program-here"}, "not found in PATH"},
		{"arguments in command", "start", map[string]any{"command": "no-such-program --flag"}, "its arguments in args"},
		{"too wide", "start", map[string]any{"command": "sh", "cols": 5000}, "cols"},
		{"cols not a number", "start", map[string]any{"command": "sh", "cols": "wide"}, "cols"},
		{"unknown argument", "start", map[string]any{"command": "sh", "colour": true}, "colour"},
		{"bad env key", "start", map[string]any{"command": "sh", "env": map[string]string{"A=B": "c"}}, "not a variable name"},
		{"bad cwd", "start", map[string]any{"command": "sh", "cwd": "/no/such/dir"}, "/no/such/dir"},
		{"unknown session", "screen", map[string]any{"id": "s99"}, "open sessions: " + st.ID},
		{"no id", "screen", map[string]any{}, "id"},
		{"bad key", "type", map[string]any{"id": st.ID, "keys": []string{"Enter", "Hyper-x"}}, "keys[1]"},
		{"nothing to type", "type", map[string]any{"id": st.ID}, "nothing to type"},
		{"bad pattern", "wait", map[string]any{"id": st.ID, "pattern": "(unclosed"}, "bad pattern"},
		{"negative timeout", "wait", map[string]any{"id": st.ID, "timeout_ms": -5}, "timeout_ms"},
		{"timeout too long", "wait", map[string]any{"id": st.ID, "timeout_ms": 1e12}, "timeout_ms"},
		{"resize out of range", "resize", map[string]any{"id": st.ID, "cols": 0, "rows": 10}, "cols"},
		{"stop unknown", "stop", map[string]any{"id": "s0"}, "unknown session"},
		{"output negative", "output", map[string]any{"id": st.ID, "from": -1}, "from"},
		{"output too much", "output", map[string]any{"id": st.ID, "max_bytes": 1 << 30}, "max_bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, cs, tt.tool, tt.args, nil)
			if !res.IsError {
				t.Fatalf("no tool error; got %s", resultText(res))
			}
			if !strings.Contains(resultText(res), tt.want) {
				t.Errorf("error %q does not mention %q", resultText(res), tt.want)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"}); err == nil {
		t.Error("an unknown tool was called")
	}
	// The server is still there and the session still works.
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "still here", "keys": []string{"Enter"}}, nil)
	mcpWaitFor(t, cs, st.ID, `got: still here`)
}

func TestMCPManySessions(t *testing.T) {
	cs := mcpClient(t)
	const n = 20
	ids := make([]string, n)
	pids := make([]int, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			call := func(name string, args map[string]any, out any) error {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				switch {
				case err != nil:
					return err
				case res.IsError:
					return fmt.Errorf("%s: %s", name, resultText(res))
				case out == nil:
					return nil
				}
				b, _ := json.Marshal(res.StructuredContent)
				return json.Unmarshal(b, out)
			}
			var st mcpStarted
			if err := call("start", helperArgs(t, "prompt", nil), &st); err != nil {
				errs <- err
				return
			}
			ids[i], pids[i] = st.ID, st.PID
			word := fmt.Sprintf("word%d", i)
			if err := call("type", map[string]any{"id": st.ID, "text": word, "keys": []string{"Enter"}}, nil); err != nil {
				errs <- err
				return
			}
			var w mcpWait
			if err := call("wait", map[string]any{"id": st.ID, "pattern": "got: " + word + "$", "timeout_ms": testkit.Deadline.Milliseconds()}, &w); err != nil {
				errs <- err
				return
			}
			if w.Reason != "match" {
				errs <- fmt.Errorf("%s: %s: %q", st.ID, w.Reason, w.Screen.Text)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var list struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	mustCall(t, cs, "list", map[string]any{}, &list)
	if len(list.Sessions) != n {
		t.Errorf("%d sessions listed, want %d", len(list.Sessions), n)
	}
	// Closing the client ends the server, which stops every program.
	if err := cs.Close(); err != nil {
		t.Errorf("closing the client: %v", err)
	}
	for _, pid := range pids {
		if pid == 0 {
			continue
		}
		testkit.Eventually(t, fmt.Sprintf("pid %d to be gone", pid), func() bool {
			return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		})
	}
}

func TestMCPUsage(t *testing.T) {
	for _, args := range [][]string{{"mcp", "extra"}, {"mcp", "--max-sessions", "0"}, {"mcp", "--nope"}} {
		if r := cli(t, "", "", args...); r.code != exitUsage {
			t.Errorf("ptyhost %q: status %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := cli(t, "", "", "mcp", "--help"); r.code != 0 || !strings.Contains(r.stdout, `"args": ["mcp"]`) {
		t.Errorf("help: %d %q", r.code, r.stdout)
	}
}

// TestMCPSignal: SIGTERM ends the server cleanly, stopping its programs.
func TestMCPSignal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(ptyhostBin, "mcp")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ptyhost-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st mcpStarted
	mustCall(t, cs, "start", helperArgs(t, "prompt", nil), &st)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the program to be stopped", func() bool {
		return errors.Is(syscall.Kill(st.PID, 0), syscall.ESRCH)
	})
	// Closing the client's side waits for the server's exit.
	cs.Close()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("after SIGTERM the server ended with %v", cmd.ProcessState)
	}
}

func TestMCPResize(t *testing.T) {
	cs := mcpClient(t)
	var st mcpStarted
	mustCall(t, cs, "start", helperArgs(t, "tui", nil), &st)
	mcpWaitFor(t, cs, st.ID, `TUI-READY`)
	var info struct {
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}
	mustCall(t, cs, "resize", map[string]any{"id": st.ID, "cols": 100, "rows": 30}, &info)
	if info.Cols != 100 || info.Rows != 30 {
		t.Errorf("resize returned %+v", info)
	}
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "size", "keys": []string{"Enter"}}, nil)
	w := mcpWaitFor(t, cs, st.ID, `^size=100x30$`)
	var scr struct {
		Cols      int  `json:"cols"`
		Rows      int  `json:"rows"`
		AltScreen bool `json:"alt_screen"`
	}
	mustCall(t, cs, "screen", map[string]any{"id": st.ID, "full": true}, &scr)
	if scr.Cols != 100 || scr.Rows != 30 || !scr.AltScreen {
		t.Errorf("screen after resize: %+v (wait saw %q)", scr, w.Screen.Text)
	}
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "exit 4", "keys": []string{"Enter"}}, nil)
	var end mcpWait
	mustCall(t, cs, "wait", map[string]any{"id": st.ID, "timeout_ms": testkit.Deadline.Milliseconds()}, &end)
	if end.Reason != "exit" || end.Screen.ExitCode == nil || *end.Screen.ExitCode != 4 {
		t.Errorf("exit: %+v", end)
	}
	res := callTool(t, cs, "resize", map[string]any{"id": st.ID, "cols": 80, "rows": 24}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "has exited") {
		t.Errorf("resizing an exited session: %s", resultText(res))
	}
	var list struct {
		Sessions []struct {
			Exited   bool `json:"exited"`
			ExitCode *int `json:"exit_code"`
		} `json:"sessions"`
	}
	text := mustCall(t, cs, "list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || !list.Sessions[0].Exited || !strings.Contains(text, "exited 4") {
		t.Errorf("list: %s", text)
	}
}
