package attachwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func u64(v uint64) *uint64 { return &v }

func TestControlGolden(t *testing.T) {
	tests := []struct {
		name string
		c    Control
		json string
	}{
		{"subscribe fresh", Subscribe{SessionID: "s1", AsRole: RoleViewer},
			`{"type":"subscribe","sessionId":"s1","asRole":"viewer","resumeFrom":null}`},
		{"subscribe resume", Subscribe{SessionID: "s1", AsRole: RoleDriver, Epoch: u64(0), ResumeFrom: u64(42), ResumeEpoch: u64(9), Viewport: &Viewport{Cols: 80, Rows: 24}},
			`{"type":"subscribe","sessionId":"s1","asRole":"driver","epoch":0,"resumeFrom":42,"resumeEpoch":9,"viewport":{"cols":80,"rows":24}}`},
		{"resume_from", ResumeFrom{Seq: 7}, `{"type":"resume_from","seq":7}`},
		{"resume_from epoch", ResumeFrom{Seq: 7, Epoch: u64(3)}, `{"type":"resume_from","seq":7,"epoch":3}`},
		{"snapshot_request", SnapshotRequest{Reason: SnapshotRingMiss}, `{"type":"snapshot_request","reason":"ring-miss"}`},
		{"kill", Kill{Reason: KillQuota, Signal: "SIGTERM"}, `{"type":"kill","reason":"quota","signal":"SIGTERM"}`},
		{"kill no signal", Kill{Reason: KillStopped}, `{"type":"kill","reason":"stopped"}`},
		{"grab", Grab{}, `{"type":"grab"}`},
		{"release", Release{}, `{"type":"release"}`},
		{"ping", Ping{}, `{"type":"ping"}`},
		{"pong", Pong{}, `{"type":"pong"}`},
		{"presence", Presence{Op: PresenceList, Members: []Member{{UserID: "u", ConnID: "c", Role: RoleDriver, Driving: true}}},
			`{"type":"presence","op":"list","members":[{"userId":"u","connId":"c","role":"driver","driving":true}]}`},
		{"presence named", Presence{Op: PresenceJoin, Members: []Member{{UserID: "guest-ab12cd34", ConnID: "c", Role: RoleViewer, Name: "Ada", Guest: true}}},
			`{"type":"presence","op":"join","members":[{"userId":"guest-ab12cd34","connId":"c","role":"viewer","driving":false,"name":"Ada","guest":true}]}`},
		{"presence empty", Presence{Op: PresenceList, Members: []Member{}}, `{"type":"presence","op":"list","members":[]}`},
		{"input_ack", InputAck{AckInputSeq: 12}, `{"type":"input_ack","ackInputSeq":12}`},
		{"pen_granted", PenGranted{UserID: "u", ConnID: "c", PenGeneration: 2}, `{"type":"pen_granted","userId":"u","connId":"c","penGeneration":2}`},
		{"pen_revoked", PenRevoked{UserID: "u", ConnID: "c", PenGeneration: 3}, `{"type":"pen_revoked","userId":"u","connId":"c","penGeneration":3}`},
		{"pen_state free", PenState{PenGeneration: 4}, `{"type":"pen_state","penGeneration":4}`},
		{"pen_state held", PenState{HolderUserID: "u", HolderConnID: "c", PenGeneration: 4}, `{"type":"pen_state","holderUserId":"u","holderConnId":"c","penGeneration":4}`},
		{"pen_state read-only", PenState{PenGeneration: 5, ReadOnly: true}, `{"type":"pen_state","penGeneration":5,"readOnly":true}`},
		{"kick", Kick{ConnID: "c", Reason: "spam"}, `{"type":"kick","connId":"c","reason":"spam"}`},
		{"kick no reason", Kick{ConnID: "c"}, `{"type":"kick","connId":"c"}`},
		{"pen_take", PenTake{}, `{"type":"pen_take"}`},
		{"read_only on", ReadOnly{On: true}, `{"type":"read_only","on":true}`},
		{"read_only off", ReadOnly{}, `{"type":"read_only","on":false}`},
		{"proposal pending", Proposal{ID: "p1", State: ProposalPending, Text: "ls\r", FromUserID: "agent", FromName: "claude", ExpiresAt: 1700000000000},
			`{"type":"proposal","id":"p1","state":"pending","text":"ls\r","fromUserId":"agent","fromName":"claude","expiresAt":1700000000000}`},
		{"proposal rejected", Proposal{ID: "p1", State: ProposalRejected, Text: "rm -rf /", FromUserID: "agent", ByUserID: "ada", Reason: "no"},
			`{"type":"proposal","id":"p1","state":"rejected","text":"rm -rf /","fromUserId":"agent","byUserId":"ada","reason":"no"}`},
		{"propose", Propose{Text: "make\r"}, `{"type":"propose","text":"make\r"}`},
		{"decide approve", Decision{ID: "p1", Verdict: VerdictApprove}, `{"type":"decide","id":"p1","verdict":"approve"}`},
		{"decide edit stamped", Decision{ID: "p1", Verdict: VerdictEdit, Text: "ls -l\r", ByUserID: "ada", ByConnID: "j1", ByName: "Ada"},
			`{"type":"decide","id":"p1","verdict":"edit","text":"ls -l\r","byUserId":"ada","byConnId":"j1","byName":"Ada"}`},
		{"room_state", RoomState{State: RoomHostReconnecting, SinceSeq: u64(100)}, `{"type":"room_state","state":"host-reconnecting","sinceSeq":100}`},
		{"error", ErrorControl{Code: CodeRingMiss, Message: "gone", Retryable: true}, `{"type":"error","code":"ring-miss","message":"gone","retryable":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := MarshalControl(tt.c)
			if err != nil || string(doc) != tt.json {
				t.Fatalf("MarshalControl = %s, %v\nwant %s", doc, err, tt.json)
			}
			payload, err := AppendControl(nil, tt.c)
			if err != nil || !bytes.Equal(payload, append(appendUvarint(nil, uint64(len(tt.json))), tt.json...)) {
				t.Fatalf("AppendControl = %q, %v", payload, err)
			}
			got, err := DecodeControl(payload)
			if err != nil || !reflect.DeepEqual(got, tt.c) {
				t.Fatalf("DecodeControl = %#v, %v; want %#v", got, err, tt.c)
			}
			prefixesFail(t, payload, func(p []byte) error { _, err := DecodeControl(p); return err })
		})
	}
}

func TestControlGoldenHex(t *testing.T) {
	f, err := ControlFrame(Grab{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.MarshalBinary()
	// type 07, seq 0, rel 0, jsonLen 15, {"type":"grab"}
	want := unhex(t, "07 00 00 0f 7b 22 74 79 70 65 22 3a 22 67 72 61 62 22 7d")
	if !bytes.Equal(b, want) {
		t.Fatalf("grab frame = % x, want % x", b, want)
	}
}

func TestParseControl(t *testing.T) {
	tests := []struct {
		name string
		json string
		want Control
	}{
		{"unknown fields ignored", `{"type":"input_ack","ackInputSeq":3,"extra":{"a":[1]}}`, InputAck{AckInputSeq: 3}},
		{"type not first", `{"seq":5,"type":"resume_from"}`, ResumeFrom{Seq: 5}},
		{"resumeFrom null", `{"type":"subscribe","sessionId":"x","asRole":"host","resumeFrom":null}`, Subscribe{SessionID: "x", AsRole: RoleHost}},
		{"resumeFrom absent", `{"type":"subscribe","sessionId":"x","asRole":"host"}`, Subscribe{SessionID: "x", AsRole: RoleHost}},
		{"resumeFrom zero", `{"type":"subscribe","resumeFrom":0}`, Subscribe{ResumeFrom: u64(0)}},
		{"presence members null", `{"type":"presence","op":"join","members":null}`, Presence{Op: PresenceJoin}},
		{"unknown enum value kept", `{"type":"room_state","state":"on-fire"}`, RoomState{State: "on-fire"}},
		{"member without name", `{"type":"presence","op":"list","members":[{"userId":"u","connId":"c","role":"viewer","driving":false}]}`,
			Presence{Op: PresenceList, Members: []Member{{UserID: "u", ConnID: "c", Role: RoleViewer}}}},
		{"member name null", `{"type":"presence","op":"list","members":[{"userId":"u","name":null,"guest":null}]}`,
			Presence{Op: PresenceList, Members: []Member{{UserID: "u"}}}},
		{"read_only absent on", `{"type":"read_only"}`, ReadOnly{}},
		{"kick unknown member", `{"type":"kick","connId":"c","why":1}`, Kick{ConnID: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseControl([]byte(tt.json))
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseControl = %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

func TestParseControlErrors(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		unknown bool
	}{
		{"unknown type", `{"type":"teleport","x":1}`, true},
		{"empty type", `{"type":""}`, true},
		{"no type", `{"seq":1}`, false},
		{"null type", `{"type":null}`, false},
		{"type not string", `{"type":7}`, false},
		{"not an object", `[1,2]`, false},
		{"null document", `null`, false},
		{"malformed", `{"type":"grab"`, false},
		{"empty", ``, false},
		{"wrong member type", `{"type":"input_ack","ackInputSeq":"7"}`, false},
		{"negative seq", `{"type":"resume_from","seq":-1}`, false},
		{"trailing garbage", `{"type":"grab"} x`, false},
		{"member name not string", `{"type":"presence","op":"join","members":[{"userId":"u","name":7}]}`, false},
		{"member guest not bool", `{"type":"presence","op":"join","members":[{"userId":"u","guest":"yes"}]}`, false},
		{"member name twice", `{"type":"presence","op":"join","members":[{"name":"a","name":"b"}]}`, false},
		{"member name case", `{"type":"presence","op":"join","members":[{"name":"a","Name":"b"}]}`, false},
		{"read_only on not bool", `{"type":"read_only","on":1}`, false},
		{"read_only on string", `{"type":"read_only","on":"true"}`, false},
		{"pen_state readOnly not bool", `{"type":"pen_state","penGeneration":1,"readOnly":0}`, false},
		{"kick connId not string", `{"type":"kick","connId":7}`, false},
		{"kick connId twice", `{"type":"kick","connId":"a","connId":"b"}`, false},
		{"kick connId case", `{"type":"kick","connId":"a","ConnId":"b"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseControl([]byte(tt.json))
			if c != nil || err == nil {
				t.Fatalf("ParseControl = %#v, %v; want an error", c, err)
			}
			var ue *UnknownControlError
			if tt.unknown {
				if !errors.Is(err, ErrUnknownControl) || !errors.As(err, &ue) {
					t.Fatalf("err = %v, want *UnknownControlError", err)
				}
				var fe *FramingError
				if errors.As(err, &fe) {
					t.Fatalf("unknown type reported as a framing error")
				}
				return
			}
			wantFraming(t, err, tt.name)
			if errors.Is(err, ErrUnknownControl) {
				t.Fatalf("framing error matches ErrUnknownControl")
			}
		})
	}
}

// TestParseControlMemberNames checks that member names match exactly, as
// JavaScript's JSON.parse reads them, and that objects a case-insensitive or
// a case-sensitive parser would read differently are framing errors.
func TestParseControlMemberNames(t *testing.T) {
	tests := []struct {
		name   string
		json   string
		want   Control // nil: a framing error whose reason contains reason
		reason string
	}{
		{"upper-case names", `{"TYPE":"kill","REASON":"quota"}`, nil, `no "type"`},
		{"capitalised type only", `{"Type":"grab"}`, nil, `no "type"`},
		{"empty object", `{}`, nil, `no "type"`},
		{"upper-case member ignored", `{"type":"kill","REASON":"quota"}`, Kill{}, ""},
		{"mixed-case member ignored", `{"type":"pen_state","PenGeneration":4,"holderUserID":"u"}`, PenState{}, ""},
		{"kelvin sign is not k", `{"type":"input_ack","ac\u212aInputSeq":5}`, InputAck{}, ""},
		{"long s is not s", `{"type":"resume_from","\u017feq":5}`, ResumeFrom{}, ""},
		{"escaped exact name", `{"typ\u0065":"kill","re\u0061son":"quota"}`, Kill{Reason: KillQuota}, ""},
		{"type and Type", `{"type":"grab","Type":"kill","reason":"revoked"}`, nil, `"type" and "Type" differ only in case`},
		{"Type and type", `{"Type":"kill","type":"grab"}`, nil, `"Type" and "type" differ only in case`},
		{"type twice", `{"type":"grab","type":"kill"}`, nil, `member "type" twice`},
		{"escaped type twice", `{"type":"grab","typ\u0065":"kill"}`, nil, `member "type" twice`},
		{"reason twice", `{"type":"kill","reason":"quota","reason":"revoked"}`, nil, `member "reason" twice`},
		{"reason and Reason", `{"type":"kill","reason":"quota","Reason":"revoked"}`, nil, "differ only in case"},
		{"kelvin collision", `{"type":"input_ack","ackInputSeq":1,"ac\u212aInputSeq":2}`, nil, "differ only in case"},
		{"unknown names collide", `{"type":"grab","x":1,"X":2}`, nil, `"x" and "X"`},
		{"unknown name twice", `{"type":"grab","x":1,"x":2}`, nil, `member "x" twice`},
		{"unknown nested object not examined", `{"type":"grab","extra":{"a":1,"a":2,"A":3}}`, Grab{}, ""},
		{"viewport exact", `{"type":"subscribe","viewport":{"Cols":80,"rows":24,"ROWS":25}}`, nil, `subscribe control viewport members "rows" and "ROWS"`},
		{"viewport case ignored", `{"type":"subscribe","viewport":{"Cols":80,"rows":24}}`, Subscribe{Viewport: &Viewport{Rows: 24}}, ""},
		{"viewport twice inside", `{"type":"subscribe","viewport":{"cols":80,"cols":81}}`, nil, `member "cols" twice`},
		{"viewport null", `{"type":"subscribe","viewport":null}`, Subscribe{}, ""},
		{"viewport not an object", `{"type":"subscribe","viewport":5}`, nil, "subscribe control json"},
		{"member case ignored", `{"type":"presence","op":"join","members":[{"UserId":"u","connId":"c"}]}`,
			Presence{Op: PresenceJoin, Members: []Member{{ConnID: "c"}}}, ""},
		{"member names collide", `{"type":"presence","op":"join","members":[{"userId":"u"},{"userId":"u","USERID":"v"}]}`,
			nil, `presence control members members "userId" and "USERID"`},
		{"members not an array", `{"type":"presence","members":{"userId":"u"}}`, nil, "presence control json"},
		{"data after the object", `{"type":"grab"}{}`, nil, "data after the object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseControl([]byte(tt.json))
			if tt.want != nil {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("ParseControl = %#v, %v; want %#v", got, err, tt.want)
				}
				return
			}
			if got != nil {
				t.Fatalf("ParseControl = %#v, want nil", got)
			}
			wantFraming(t, err, tt.name)
			if !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("error %q does not mention %q", err, tt.reason)
			}
			payload := append(appendUvarint(nil, uint64(len(tt.json))), tt.json...)
			if _, derr := DecodeControl(payload); derr == nil || derr.Error() != err.Error() {
				t.Fatalf("DecodeControl error %v, ParseControl error %v", derr, err)
			}
		})
	}
}

func TestFoldName(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"type", "TYPE", true},
		{"type", "Type", true},
		{"ackInputSeq", "ac\u212aInputSeq", true},
		{"seq", "\u017feq", true},
		{"type", "types", false},
		{"userId", "userld", false},
		{"", "", true},
	} {
		if got := foldName(tt.a) == foldName(tt.b); got != tt.same || got != strings.EqualFold(tt.a, tt.b) {
			t.Errorf("foldName(%q) == foldName(%q) is %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

func TestUnknownControlErrorType(t *testing.T) {
	_, err := DecodeControl(append([]byte{19}, `{"type":"teleport"}`...))
	var ue *UnknownControlError
	if !errors.As(err, &ue) || ue.Type != "teleport" {
		t.Fatalf("err = %v", err)
	}
	if got := err.Error(); got != `attachwire: unknown control type "teleport"` {
		t.Fatalf("message = %q", got)
	}
}

func TestDecodeControlFraming(t *testing.T) {
	for _, tc := range []struct{ name, hex string }{
		{"trailing byte", "02 7b 7d 00"},
		{"length past end", "05 7b 7d"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeControl(unhex(t, tc.hex))
			wantFraming(t, err, tc.name)
		})
	}
}

func TestMarshalControlNil(t *testing.T) {
	_, err := MarshalControl(nil)
	wantFraming(t, err, "nil")
	doc, err := MarshalControl(&Presence{Op: PresenceJoin})
	if err != nil || string(doc) != `{"type":"presence","op":"join","members":[]}` {
		t.Fatalf("pointer presence = %s, %v", doc, err)
	}
	doc, err = MarshalControl(&Kill{Reason: KillRevoked})
	if err != nil || string(doc) != `{"type":"kill","reason":"revoked"}` {
		t.Fatalf("pointer control = %s, %v", doc, err)
	}
}

func TestErrorControlIsRingMiss(t *testing.T) {
	var err error = ErrorControl{Code: CodeRingMiss, Message: "behind"}
	if !errors.Is(err, ErrRingMiss) {
		t.Fatal("ring-miss error control does not match ErrRingMiss")
	}
	if errors.Is(ErrorControl{Code: CodeAuth}, ErrRingMiss) {
		t.Fatal("auth error control matches ErrRingMiss")
	}
}

func TestErrorCodeRegistry(t *testing.T) {
	codes := []ErrorCode{CodeFraming, CodeAuth, CodeRoomMismatch, CodePenDenied, CodeRingMiss,
		CodeBackpressure, CodeRateLimited, CodeEpochStale, CodeInternal, CodeHostLost,
		CodeHostStillAbsent, CodeRelayRestarting}
	want := "framing auth room-mismatch pen-denied ring-miss backpressure rate-limited epoch-stale internal host-lost host-still-absent relay-restarting"
	var got []byte
	for i, c := range codes {
		if i > 0 {
			got = append(got, ' ')
		}
		got = append(got, c...)
	}
	if string(got) != want {
		t.Fatalf("codes = %s", got)
	}
}

// TestControlRegistry: every registered control round-trips with every
// field set, its entry's name is its ControlType, and the registry holds
// exactly the types that implement the sealed Control interface in this
// package's source.
func TestControlRegistry(t *testing.T) {
	registered := map[string]bool{}
	for _, e := range controlTable {
		registered[e.typ.Name()] = true
		t.Run(e.name, func(t *testing.T) {
			v := reflect.New(e.typ).Elem()
			fill(v)
			c := v.Interface().(Control)
			if c.ControlType() != e.name || controls[e.name].typ != e.typ {
				t.Fatalf("entry %q holds %T, whose type is %q", e.name, c, c.ControlType())
			}
			doc, err := MarshalControl(c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseControl(doc)
			if err != nil || !reflect.DeepEqual(got, c) {
				t.Fatalf("ParseControl(%s) = %#v, %v; want %#v", doc, got, err, c)
			}
		})
	}
	sealed := sealedControls(t)
	for name := range sealed {
		if !registered[name] {
			t.Errorf("%s implements Control but is not registered", name)
		}
	}
	for name := range registered {
		if !sealed[name] {
			t.Errorf("%s is registered but has no control method", name)
		}
	}
}

// fill sets every field of v, recursively, to a value that is not zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x\u00e9\"\\")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0))
		fill(v.Index(1))
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	default:
		panic("fill: " + v.Type().String())
	}
}

// sealedControls returns the names of the types this package's source
// gives a control method: the sealed set of Control.
func sealedControls(tb testing.TB) map[string]bool {
	tb.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		tb.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "control" {
				continue
			}
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok {
				out[id.Name] = true
			}
		}
	}
	if len(out) == 0 {
		tb.Fatal("found no control methods")
	}
	return out
}

// TestParseControlAllocation: decoding costs a small multiple of the input
// (a 12 MB presence list must not allocate many times its size), and a list
// past MaxPresenceMembers is refused before it is allocated.
func TestParseControlAllocation(t *testing.T) {
	for _, tt := range []struct {
		name    string
		members int
		ok      bool
	}{
		{"at the cap", MaxPresenceMembers, true},
		{"12 MB", 160_000, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := presenceDoc(tt.members)
			var c Control
			var err error
			got := allocated(func() { c, err = ParseControl(doc) })
			if tt.ok != (err == nil) {
				t.Fatalf("ParseControl of %d members: %v", tt.members, err)
			}
			if err != nil {
				wantFraming(t, err, tt.name)
				if !strings.Contains(err.Error(), "more than 10000") {
					t.Errorf("error %q does not give the cap", err)
				}
			} else if n := len(c.(Presence).Members); n != tt.members {
				t.Fatalf("decoded %d members, want %d", n, tt.members)
			}
			if limit := 4 * uint64(len(doc)); got > limit {
				t.Errorf("ParseControl of %d bytes allocated %d, bound %d", len(doc), got, limit)
			}
			t.Logf("%d bytes in, %d allocated (%.2fx)", len(doc), got, float64(got)/float64(len(doc)))
		})
	}
}

func TestMarshalControlPresenceCap(t *testing.T) {
	p := Presence{Op: PresenceList, Members: make([]Member, MaxPresenceMembers+1)}
	for _, c := range []Control{p, &p} {
		if _, err := MarshalControl(c); err == nil {
			t.Fatalf("MarshalControl(%T of %d members) succeeded", c, len(p.Members))
		} else {
			wantFraming(t, err, "presence cap")
		}
	}
}

// TestUnquote: string contents decode as encoding/json decodes them.
func TestUnquote(t *testing.T) {
	for _, q := range []string{
		`""`, `"plain"`, `"caf\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`,
		`"\ud83d\u0041"`, `"a\"b\\c\/d\b\f\n\r\t"`, "\"\xff\xfe\"", "\"\xe2\x82\"", `"\u0000"`, `"\uFFFF"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(q), &want); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := string(unquote([]byte(q))); got != want {
			t.Errorf("unquote(%s) = %q, encoding/json %q", q, got, want)
		}
	}
}

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// presenceDoc returns a presence list of n members, about 82 bytes each.
func presenceDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"presence","op":"list","members":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"userId":"user-%07d","connId":"conn-%07d","role":"viewer","driving":false}`, i, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestIsHostControl: exactly kick, pen_take, read_only and proposal are the host's.
func TestIsHostControl(t *testing.T) {
	for _, e := range controlTable {
		c := reflect.New(e.typ).Elem().Interface().(Control)
		want := e.name == "kick" || e.name == "pen_take" || e.name == "read_only" || e.name == "proposal"
		if got := IsHostControl(c); got != want {
			t.Errorf("IsHostControl(%s) = %v, want %v", e.name, got, want)
		}
	}
	if IsHostControl(nil) {
		t.Error("IsHostControl(nil) = true")
	}
}
