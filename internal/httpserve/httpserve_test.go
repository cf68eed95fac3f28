package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// failingListener's Accept fails with a lasting error.
type failingListener struct{ net.Listener }

var errBroken = errors.New("listener broken")

func (failingListener) Accept() (net.Conn, error) { return nil, errBroken }

// TestServeErrorNoLeak: when the listener fails, Serve returns its error
// without leaving its shutdown goroutine behind (the context never ends);
// when the context ends, Serve returns nil.
func TestServeErrorNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		err = Serve(context.Background(), &http.Server{}, failingListener{ln}, time.Second)
		if !errors.Is(err, errBroken) {
			t.Fatalf("Serve: %v, want the listener's error", err)
		}
	}
	var after int
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if after = runtime.NumGoroutine(); after <= before {
			break
		}
	}
	if after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after 20 failed Serves, %d before: %s", after, before, buf[:runtime.Stack(buf, true)])
	}
	// the positive path: a context that ends stops a working server
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, &http.Server{}, ln, time.Second) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after the context ended: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve outlived its context")
	}
}
