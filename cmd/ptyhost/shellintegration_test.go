package main

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/shellmark"
)

func TestShellIntegrationPrintsSnippet(t *testing.T) {
	for _, shell := range shellmark.Shells() {
		code, stdout, stderr := runInProcess(t, "shell-integration", shell)
		want, err := shellmark.Snippet(shell)
		if err != nil {
			t.Fatal(err)
		}
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("%s: exit %d, %d bytes (want %d), stderr %q", shell, code, len(stdout), len(want), stderr)
		}
	}
}

func TestShellIntegrationUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"tcsh"}, {"bash", "zsh"}, {"--bogus"}} {
		code, stdout, stderr := runInProcess(t, append([]string{"shell-integration"}, args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "shell-integration") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}
