package natsembed_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay/natsembed"
)

// startTrio starts three servers clustered through routes on loopback,
// each given the whole list of route addresses.
func startTrio(t *testing.T) []*natsembed.Server {
	t.Helper()
	var addrs, routes []string
	for range 3 {
		a := testkit.FreeAddr(t)
		addrs, routes = append(addrs, a), append(routes, "nats://"+a)
	}
	var trio []*natsembed.Server
	for i, a := range addrs {
		s, err := natsembed.Start("127.0.0.1:0", natsembed.Options{StoreDir: t.TempDir(),
			Name: fmt.Sprintf("n%d", i), ClusterAddr: a, Routes: routes})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		trio = append(trio, s)
	}
	return trio
}

// A key-value bucket replicated on three clustered servers keeps its
// contents, and takes writes, after any one of them is lost.
func TestClusterKeepsAReplicatedBucketPastTheLossOfAServer(t *testing.T) {
	if testing.Short() {
		t.Skip("three JetStream servers: not in -short")
	}
	for lost := range 3 {
		t.Run(fmt.Sprintf("lose n%d", lost), func(t *testing.T) {
			trio := startTrio(t)
			survivor := trio[(lost+1)%3]
			kvOn := func(s *natsembed.Server) jetstream.KeyValue {
				t.Helper()
				nc, err := nats.Connect(s.ClientURL())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(nc.Close)
				js, err := jetstream.New(nc)
				if err != nil {
					t.Fatal(err)
				}
				var kv jetstream.KeyValue
				eventually(t, "the bucket", func() error {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b", Replicas: 3})
					return err
				})
				return kv
			}
			kv := kvOn(trio[lost])
			if _, err := kv.Put(context.Background(), "k", []byte("v1")); err != nil {
				t.Fatal(err)
			}
			trio[lost].Close()
			kv = kvOn(survivor)
			eventually(t, "a write after the loss", func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				e, err := kv.Get(ctx, "k")
				if err != nil {
					return err
				}
				if string(e.Value()) != "v1" {
					return fmt.Errorf("k is %q, want v1", e.Value())
				}
				_, err = kv.Put(ctx, "k", []byte("v2"))
				return err
			})
		})
	}
}

func TestStartRefusesRoutesWithoutAClusterAddress(t *testing.T) {
	_, err := natsembed.Start("127.0.0.1:0", natsembed.Options{StoreDir: t.TempDir(), Routes: []string{"nats://127.0.0.1:1"}})
	if err == nil {
		t.Fatal("Start took routes with no cluster address")
	}
	_, err = natsembed.Start("127.0.0.1:0", natsembed.Options{StoreDir: t.TempDir(), ClusterAddr: "127.0.0.1:0", Routes: []string{"http://x"}})
	if err == nil {
		t.Fatal("Start took an http route")
	}
	_, err = natsembed.Start("127.0.0.1:0", natsembed.Options{StoreDir: t.TempDir(), ClusterAddr: "127.0.0.1:0"})
	if err == nil {
		t.Fatal("Start took a cluster address with no routes")
	}
}

// eventually retries f until it succeeds or 30 s pass (a JetStream
// cluster elects its leaders in seconds).
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
