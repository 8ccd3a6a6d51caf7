package xvt

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

type ansiMode = ansi.Mode

// modeKey names a mode: DEC private (CSI ? n h) or ANSI (CSI n h).
type modeKey struct {
	dec bool
	n   int
}

// implemented lists the modes x/vt acts on, with their reset state; DECRQM
// reports these and "not recognized" for any other.
var implemented = map[modeKey]bool{
	{true, 1}: false, {true, 6}: false, {true, 7}: true, {true, 9}: false,
	{true, 25}: true, {true, 66}: false, {true, 69}: false,
	{true, 1000}: false, {true, 1001}: false, {true, 1002}: false, {true, 1003}: false,
	{true, 1004}: false, {true, 1006}: false,
	{true, 1047}: false, {true, 1048}: false, {true, 1049}: false,
	{true, 2004}: false, {false, 20}: false,
	{false, 4}: false, // emulated by the filter
}

// modeSet mirrors x/vt's mode table, which it does not export, from its
// EnableMode and DisableMode callbacks. Like x/vt's table it records every
// mode a sequence set, implemented or not (?1005 matters for the mouse
// encoding a snapshot reports).
type modeSet struct {
	on map[modeKey]bool
}

func newModeSet() modeSet {
	m := modeSet{on: make(map[modeKey]bool, len(implemented))}
	m.reset()
	return m
}

// reset restores the modes x/vt sets on RIS.
func (m *modeSet) reset() {
	clear(m.on)
	for k, v := range implemented {
		m.on[k] = v
	}
}

func (m *modeSet) set(mode ansi.Mode, on bool) {
	switch mode := mode.(type) {
	case ansi.DECMode:
		m.on[modeKey{true, int(mode)}] = on
	case ansi.ANSIMode:
		m.on[modeKey{false, int(mode)}] = on
	}
}

func (m *modeSet) dec(n int) bool { return m.on[modeKey{true, n}] }

// report returns the DECRQM state of mode n.
func (m *modeSet) report(n int, dec bool) int {
	k := modeKey{dec, n}
	if _, ok := implemented[k]; !ok {
		return term.ModeNotRecognized
	}
	if m.on[k] {
		return term.ModeSet
	}
	return term.ModeReset
}

// screenModes returns the Modes and MouseProto of a snapshot, except
// pending wrap.
func (m *modeSet) screenModes() (attachwire.Modes, attachwire.MouseProto) {
	var modes attachwire.Modes
	if m.dec(2004) {
		modes |= attachwire.ModeBracketedPaste
	}
	if m.dec(1) {
		modes |= attachwire.ModeAppCursorKeys
	}
	if m.dec(1004) {
		modes |= attachwire.ModeFocus
	}
	var mouse attachwire.MouseProto
	switch {
	case m.dec(1003):
		mouse = attachwire.MouseAny
	case m.dec(1002):
		mouse = attachwire.MouseButton
	case m.dec(1001):
		mouse = attachwire.MouseHighlight
	case m.dec(1000), m.dec(9):
		mouse = attachwire.MouseX10
	default:
		return modes, 0
	}
	switch {
	case m.dec(1006):
		mouse |= attachwire.MouseEncSGR
	case m.dec(1005):
		mouse |= attachwire.MouseEncUTF8
	}
	return modes | attachwire.ModeMouse, mouse
}
