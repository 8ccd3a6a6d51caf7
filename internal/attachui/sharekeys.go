package attachui

// ShareCommand is what a key after the prefix asks of `ptyhost share`,
// whose terminal always drives: its prefix menu is the sharer's say over
// the room.
type ShareCommand uint8

// Commands of share's prefix key.
const (
	ShareNone     ShareCommand = iota
	SharePeople                // w: who is here
	ShareKick                  // k: remove one participant
	ShareRevoke                // x: revoke a link
	ShareTakePen               // p: take the pen back
	ShareReadOnly              // o: read-only on or off
	ShareStop                  // s: stop sharing; the program goes on
	ShareHelp                  // ?: show the keys
	ShareUnknown               // any other key after the prefix
	SharePick                  // the key read after Pick: a menu's choice
	ShareRekey                 // e: a new room key; the old links stop
	ShareApprove               // y: approve the oldest input proposal waiting
	ShareReject                // n: reject it
)

// ShareKeys splits the sharer's input into bytes for the session and
// prefix commands, as Keys does for attach: the prefix then w, k, x, p,
// o, e, s, y, n or ? is a command, the prefix twice sends one prefix byte, the
// prefix then any other key is ShareUnknown (dropped). After Pick, the
// next key, whatever it is, is a SharePick: a menu's choice (or its
// cancellation), never the session's.
type ShareKeys struct {
	Prefix  byte
	pending bool
	picking bool
}

// Pick makes the next key a menu's choice.
func (k *ShareKeys) Pick() { k.picking = true }

// Feed appends to dst the bytes of p meant for the session and calls cmd
// for each command with the key that made it, in input order: cmd gets
// the bytes before it first, so typed text and commands keep their order.
func (k *ShareKeys) Feed(dst, p []byte, cmd func(send []byte, c ShareCommand, key byte) []byte) []byte {
	for _, b := range p {
		switch {
		case k.picking:
			k.picking = false
			dst = cmd(dst, SharePick, b)
		case k.pending:
			k.pending = false
			if b == k.Prefix {
				dst = append(dst, b)
				continue
			}
			dst = cmd(dst, shareCommand(b), b)
		case b == k.Prefix:
			k.pending = true
		default:
			dst = append(dst, b)
		}
	}
	return dst
}

// shareCommand maps the key after the prefix to its command.
func shareCommand(b byte) ShareCommand {
	switch b {
	case 'w':
		return SharePeople
	case 'k':
		return ShareKick
	case 'x':
		return ShareRevoke
	case 'p':
		return ShareTakePen
	case 'o':
		return ShareReadOnly
	case 's':
		return ShareStop
	case '?':
		return ShareHelp
	case 'e':
		return ShareRekey
	case 'y':
		return ShareApprove
	case 'n':
		return ShareReject
	}
	return ShareUnknown
}
