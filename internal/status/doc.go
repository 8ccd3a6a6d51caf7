// Package status is the one presentation of what a viewer knows about
// its room: whether it is connected, the room's state, who holds the pen
// and who is here. `ptyhost attach` draws it on the terminal's bottom row
// and the browser page shows it in its bar (through its WebAssembly
// module), so both say the same thing in the same words.
//
// Line is a pure function of a State. Every part is derived once from
// the State, so the line cannot contradict itself: the pen part and the
// "(driving)" mark in the presence part both come from the pen holder
// (the members' own Driving flags stand in only until a pen message has
// arrived). A line wider than the space given is shortened a whole part
// at a time: the presence list loses names (then becomes a count, then
// goes), parts take their short forms, the pen goes, and a message is cut
// at a word; a name is never cut in the middle.
//
// Names come from other people's tokens: they are made displayable
// (sanitize.UIString), bounded, and kept from posing as a separator.
// Widths are counted conservatively (every rune from U+1100 on as two
// cells), so a line never overflows the space given, at the cost of
// sometimes leaving a little of it unused.
package status
