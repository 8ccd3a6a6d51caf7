package attachui

// Command is what a key after the prefix asks for.
type Command uint8

// Commands of the prefix key.
const (
	CmdNone     Command = iota
	CmdGrab             // g: ask for the pen
	CmdRelease          // r: give the pen back
	CmdDetach           // d: leave; the session goes on
	CmdHelp             // ?: show the keys
	CmdCommands         // c: show or hide the recent commands
	CmdUnknown          // any other key after the prefix
	CmdApprove          // y: approve the oldest proposal waiting
	CmdReject           // n: reject it
	CmdEdit             // e: edit it, then approve the edited line
	CmdPropose          // p: propose a line (a proposer's token)
)

// DefaultPrefix is Ctrl-].
const DefaultPrefix = 0x1d

// InterruptKey is Ctrl-C. A watching terminal hands it to attach as a
// byte (its terminal does not turn it into SIGINT), and it detaches: a
// watcher's Ctrl-C means "stop watching", not "fail".
const InterruptKey = 0x03

// Keys splits a terminal's input into bytes for the session and prefix
// commands: the prefix then g, r, d, c, y, n, e, p or ? is a command, the prefix twice
// sends one prefix byte, and the prefix then any other key is CmdUnknown
// (the key is dropped). A prefix at the end of one read waits for the next.
// While Watching, InterruptKey alone is CmdDetach too; while driving it is
// a key for the session like any other.
type Keys struct {
	Prefix   byte
	Watching bool
	pending  bool
}

// Feed appends to dst the bytes of p meant for the session and calls cmd
// for each command, in input order: cmd gets the bytes before it first,
// through flush, so that typed text and commands keep their order.
func (k *Keys) Feed(dst, p []byte, cmd func(send []byte, c Command) []byte) []byte {
	for _, b := range p {
		if k.pending {
			k.pending = false
			c := CmdUnknown
			switch b {
			case k.Prefix:
				dst = append(dst, b)
				continue
			case 'g':
				c = CmdGrab
			case 'r':
				c = CmdRelease
			case 'd':
				c = CmdDetach
			case '?':
				c = CmdHelp
			case 'c':
				c = CmdCommands
			case 'y':
				c = CmdApprove
			case 'n':
				c = CmdReject
			case 'e':
				c = CmdEdit
			case 'p':
				c = CmdPropose
			}
			dst = cmd(dst, c)
			continue
		}
		if b == k.Prefix {
			k.pending = true
			continue
		}
		if b == InterruptKey && k.Watching {
			dst = cmd(dst, CmdDetach)
			continue
		}
		dst = append(dst, b)
	}
	return dst
}
