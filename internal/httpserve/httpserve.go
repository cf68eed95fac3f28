// Package httpserve is the one way the project's HTTP servers (package
// metrics, package web, twhist serve) serve: Serve runs an HTTP server on
// a listener until a context ends, then shuts it down within a bound; a
// Listener bounds its connections per client address and in all without
// ever making Accept wait (over a bound a connection is refused at once,
// at the total the one idle longest is closed for the new one). Counter
// and AddrKey count a client's requests or streams by the same address
// key. File and FSFile serve the pages, scripts and styles embedded in the
// binary.
package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve serves hs on ln until ctx ends; then it shuts hs down, waiting up
// to timeout for requests to finish and closing what is left (live
// streams), and returns nil once that is done. An error of the listener
// is returned as it comes, after the same shutdown (no goroutine of Serve
// outlives it).
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, timeout time.Duration) error {
	done := make(chan struct{})
	stopped := make(chan struct{}) // hs.Serve returned
	go func() {
		defer close(done)
		select {
		case <-ctx.Done():
		case <-stopped:
		}
		sctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_ = hs.Shutdown(sctx)
		_ = hs.Close()
	}()
	err := hs.Serve(ln)
	close(stopped)
	<-done // Shutdown has finished
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
