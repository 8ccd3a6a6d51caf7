package shellmark

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed snippets
var snippets embed.FS

// snippetFiles maps each shell to its snippet's file.
var snippetFiles = map[string]string{
	"bash": "snippets/bash.sh",
	"zsh":  "snippets/zsh.zsh",
	"fish": "snippets/fish.fish",
}

// Shells lists the shells Snippet has a snippet for.
func Shells() []string {
	names := make([]string, 0, len(snippetFiles))
	for name := range snippetFiles {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Snippet returns the shell code that makes shell write the marks this
// package reads: before each prompt, when a command starts (with its
// command line) and when it ends (with its status). Sourcing it twice is
// harmless, and it does nothing in a shell that is not interactive.
func Snippet(shell string) (string, error) {
	file, ok := snippetFiles[shell]
	if !ok {
		return "", fmt.Errorf("shellmark: no snippet for %q (shells: %s)", shell, strings.Join(Shells(), ", "))
	}
	b, err := snippets.ReadFile(file)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
