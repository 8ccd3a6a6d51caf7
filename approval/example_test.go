package approval_test

import (
	"context"
	"fmt"
	"regexp"

	"github.com/ptyhost/ptyhost/approval"
)

// An auto-approve rule lets routine input through at once; anything else
// waits for a person's decision in the room.
func Example() {
	g := approval.New(approval.Config{
		Write: func(_ context.Context, text string) error {
			fmt.Printf("written: %q\n", text)
			return nil
		},
		AutoApprove: []*regexp.Regexp{regexp.MustCompile(`git status\r`)},
	})
	o, err := g.Propose(context.Background(), approval.Request{Text: "git status\r", From: approval.Person{UserID: "agent"}})
	fmt.Println(o.State, err)
	_, err = g.Propose(context.Background(), approval.Request{Text: "git push --force\r"})
	fmt.Println(err)
	// Output:
	// written: "git status\r"
	// approved <nil>
	// approval: nobody can approve this input: share the session so a person can
}
