package issuer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"
)

// Users are the people who may log in: SSH public keys and the name each
// stands for. Replace swaps in a newly loaded list (a reload) for every
// holder of the *Users at once; it is safe for concurrent use.
type Users struct {
	table atomic.Pointer[map[string]User] // fingerprint → user
}

// newUsers returns Users holding byFP.
func newUsers(byFP map[string]User) *Users {
	u := &Users{}
	u.table.Store(&byFP)
	return u
}

func (u *Users) byFP() map[string]User {
	if u == nil {
		return nil
	}
	if t := u.table.Load(); t != nil {
		return *t
	}
	return nil
}

// Replace makes u list what from lists.
func (u *Users) Replace(from *Users) {
	t := from.byFP()
	u.table.Store(&t)
}

// User is one listed key.
type User struct {
	// Name is the user's name: the key's comment (its first word), the file's name in a
	// directory of per-user files, or the --users file's mapping.
	Name string
	// Fingerprint is the key's SHA256:… fingerprint.
	Fingerprint string
	// Key is the public key.
	Key ssh.PublicKey
}

// Lookup returns the user a key belongs to.
func (u *Users) Lookup(key ssh.PublicKey) (User, bool) {
	usr, ok := u.byFP()[ssh.FingerprintSHA256(key)]
	return usr, ok
}

// byFingerprint returns the user whose key has fingerprint fp.
func (u *Users) byFingerprint(fp string) (User, bool) {
	usr, ok := u.byFP()[fp]
	return usr, ok
}

// Len returns how many keys are listed.
func (u *Users) Len() int { return len(u.byFP()) }

// Names returns the user names, sorted, each once.
func (u *Users) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, usr := range u.byFP() {
		if !seen[usr.Name] {
			seen[usr.Name] = true
			out = append(out, usr.Name)
		}
	}
	sort.Strings(out)
	return out
}

// LoadUsers reads authorized, an OpenSSH authorized_keys file or a
// directory of them (one per user, named for the user; files starting
// with "." are skipped), and, if usersFile is not empty, a file of
// "SHA256:fingerprint name" lines that names keys (its names win over
// comments and file names). Every line must parse: a malformed key, an
// option sshd would not know, an option the issuer cannot honour
// (cert-authority, from, expiry-time, principals: they limit where or when
// a key may be used, which the issuer does not check), a key without a
// name, or a name of control characters or over 64 bytes is an error
// naming the file and line.
func LoadUsers(authorized, usersFile string) (*Users, error) {
	names := map[string]string{}
	if usersFile != "" {
		b, err := os.ReadFile(usersFile)
		if err != nil {
			return nil, fmt.Errorf("issuer: users file: %w", err)
		}
		if names, err = ParseUsersFile(b); err != nil {
			return nil, fmt.Errorf("issuer: %s: %w", usersFile, err)
		}
	}
	byFP := map[string]User{}
	fi, err := os.Stat(authorized)
	if err != nil {
		return nil, fmt.Errorf("issuer: authorized keys: %w", err)
	}
	if !fi.IsDir() {
		b, err := os.ReadFile(authorized)
		if err != nil {
			return nil, fmt.Errorf("issuer: authorized keys: %w", err)
		}
		if err := addKeys(byFP, b, "", names); err != nil {
			return nil, fmt.Errorf("issuer: %s: %w", authorized, err)
		}
		return newUsers(byFP), nil
	}
	ents, err := os.ReadDir(authorized)
	if err != nil {
		return nil, fmt.Errorf("issuer: authorized keys: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		if err := checkName(e.Name()); err != nil {
			return nil, fmt.Errorf("issuer: %s: file name as user name: %w", filepath.Join(authorized, e.Name()), err)
		}
		b, err := os.ReadFile(filepath.Join(authorized, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("issuer: authorized keys: %w", err)
		}
		if err := addKeys(byFP, b, e.Name(), names); err != nil {
			return nil, fmt.Errorf("issuer: %s: %w", filepath.Join(authorized, e.Name()), err)
		}
	}
	return newUsers(byFP), nil
}

// ParseAuthorizedKeys reads an authorized_keys file's content into Users:
// each key's name is its comment, or names[fingerprint] when given. It is
// LoadUsers for one file's bytes.
func ParseAuthorizedKeys(b []byte, names map[string]string) (*Users, error) {
	byFP := map[string]User{}
	if err := addKeys(byFP, b, "", names); err != nil {
		return nil, err
	}
	return newUsers(byFP), nil
}

// addKeys parses one authorized_keys file into byFP; fileUser, if not
// empty, names every key in it.
func addKeys(byFP map[string]User, b []byte, fileUser string, names map[string]string) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, comment, opts, rest, err := ssh.ParseAuthorizedKey(line)
		if err != nil || len(rest) > 0 {
			return fmt.Errorf("line %d: not an authorized_keys line", n)
		}
		if err := checkOptions(opts); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if _, ok := key.(*ssh.Certificate); ok {
			return fmt.Errorf("line %d: a certificate, not a key", n)
		}
		fp := ssh.FingerprintSHA256(key)
		name := fileUser
		if f := strings.Fields(comment); name == "" && len(f) > 0 {
			// A comment's first word: "alice@laptop work key" is alice@laptop.
			name = f[0]
		}
		if m, ok := names[fp]; ok {
			name = m
		}
		if name == "" {
			return fmt.Errorf("line %d: key %s has no name: give it a comment or map it in the users file", n, fp)
		}
		if err := checkName(name); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if prev, ok := byFP[fp]; ok && prev.Name != name {
			return fmt.Errorf("line %d: key %s listed for %q and %q", n, fp, prev.Name, name)
		}
		byFP[fp] = User{Name: name, Fingerprint: fp, Key: key}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading: %w", err)
	}
	return nil
}

// The options sshd knows (sshd(8), AUTHORIZED_KEYS FILE FORMAT), and the
// ones among them that restrict where or when a key is good: the issuer
// cannot honour those, and a key that an operator restricted must not be
// let in unrestricted.
var (
	knownOptions = map[string]bool{
		"agent-forwarding": true, "cert-authority": true, "command": true, "environment": true,
		"expiry-time": true, "from": true, "no-agent-forwarding": true, "no-port-forwarding": true,
		"no-pty": true, "no-user-rc": true, "no-X11-forwarding": true, "permitlisten": true,
		"permitopen": true, "port-forwarding": true, "principals": true, "pty": true,
		"no-touch-required": true, "verify-required": true, "restrict": true, "tunnel": true,
		"user-rc": true, "X11-forwarding": true,
	}
	restrictingOptions = map[string]bool{"cert-authority": true, "from": true, "expiry-time": true, "principals": true}
)

// valuedOptions take a quoted value (name="…"); the others take none.
var valuedOptions = map[string]bool{
	"command": true, "environment": true, "expiry-time": true, "from": true, "permitlisten": true,
	"permitopen": true, "principals": true, "tunnel": true,
}

func checkOptions(opts []string) error {
	for _, o := range opts {
		name, _, valued := strings.Cut(o, "=")
		// sshd matches option names case-insensitively.
		canon := ""
		for k := range knownOptions {
			if strings.EqualFold(k, name) {
				canon = k
			}
		}
		switch {
		case canon == "":
			return fmt.Errorf("option %q is not one sshd knows", name)
		case valuedOptions[canon] != valued:
			return fmt.Errorf("option %q: a value where none goes, or none where one must", name)
		case restrictingOptions[canon]:
			return fmt.Errorf("option %q limits the key in a way the issuer does not check: list the key without it", name)
		}
	}
	return nil
}

// checkName checks a user name: 1 to 64 bytes of UTF-8, no control,
// format or white-space characters.
func checkName(s string) error {
	switch {
	case s == "":
		return errors.New("empty user name")
	case len(s) > 64:
		return errors.New("user name longer than 64 bytes")
	case !utf8.ValidString(s):
		return errors.New("user name is not UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf) || unicode.IsSpace(r) {
			return errors.New("user name holds a space, control or format character")
		}
	}
	return nil
}

// ParseUsersFile reads "SHA256:fingerprint name" lines (blank lines and
// lines starting with # skipped) into a fingerprint → name map.
func ParseUsersFile(b []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !strings.HasPrefix(f[0], "SHA256:") || len(f[0]) != len("SHA256:")+43 {
			return nil, fmt.Errorf("line %d: want \"SHA256:<43 characters> name\"", n)
		}
		if err := checkName(f[1]); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("line %d: fingerprint listed twice", n)
		}
		out[f[0]] = f[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	return out, nil
}
