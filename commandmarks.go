package ptyhost

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/shellmark"
)

// commandMarks turns the shell-integration marks in the output into
// command-mark labels. It is used under the session lock.
type commandMarks struct {
	scanner shellmark.Scanner
	found   []shellmark.Found
	out     []labelAt
	// command is the command line a shell announced (OSC 633;E) for the
	// command it is about to start.
	command string
}

// labelAt is a label to publish after the chunk's first end bytes.
type labelAt struct {
	end   int
	label string
}

func newCommandMarks(off bool) *commandMarks {
	if off {
		return nil
	}
	return &commandMarks{}
}

// scan returns the labels to publish for chunk p, in order; the slice is
// reused by the next call.
func (c *commandMarks) scan(p []byte) []labelAt {
	c.found = c.scanner.Scan(p, c.found[:0])
	c.out = c.out[:0]
	for _, f := range c.found {
		var m attachwire.CommandMark
		switch f.Kind {
		case shellmark.Prompt:
			c.command = ""
			m.Kind = attachwire.MarkPrompt
		case shellmark.CommandLine:
			c.command = f.Text
			continue
		case shellmark.CommandStart:
			m = attachwire.CommandMark{Kind: attachwire.MarkCommand, Command: c.command}
			c.command = ""
		case shellmark.CommandEnd:
			m = attachwire.CommandMark{Kind: attachwire.MarkExit, Status: f.Status, HasStatus: f.HasStatus}
		default:
			// The prompt's end says nothing a viewer shows.
			continue
		}
		c.out = append(c.out, labelAt{end: f.End, label: m.Label()})
	}
	return c.out
}
