package console

import (
	"context"
	"errors"
)

// ErrStopped is returned by Queue.Submit once the game loop has stopped.
var ErrStopped = errors.New("server: game loop stopped")

// ErrLineTooLong is returned by Queue.Submit for a line over MaxLine.
var ErrLineTooLong = errors.New("server: console line too long")

// Submitted is a console line of another goroutine waiting in a Queue; the
// game loop runs it with Run.
type Submitted struct {
	caller  Caller
	line    string
	collect bool
	out     []string
	done    chan struct{}
}

// Queue hands console lines of side channels (the econ, the command FIFO,
// an admin page) to the game loop and waits until they ran. Submit is safe
// from any goroutine; the loop receives from C, runs each line with Run
// and calls Stop once it stops.
type Queue struct {
	c    chan *Submitted
	done chan struct{}
}

// NewQueue returns a queue holding at most n lines waiting for the loop.
func NewQueue(n int) *Queue {
	return &Queue{c: make(chan *Submitted, n), done: make(chan struct{})}
}

// C is the channel the game loop receives submitted lines from.
func (q *Queue) C() <-chan *Submitted { return q.c }

// Stop tells the waiting and later submitters that the loop has stopped
// (ErrStopped). Call it once, from the loop.
func (q *Queue) Stop() { close(q.done) }

// Submit queues line for caller and waits until the loop ran it; with
// collect it returns the lines the command printed. It waits while the
// queue is full, until ctx is done or the loop has stopped (ErrStopped).
func (q *Queue) Submit(ctx context.Context, caller Caller, line string, collect bool) ([]string, error) {
	if len(line) > MaxLine {
		return nil, ErrLineTooLong
	}
	sub := &Submitted{caller: caller, line: line, collect: collect, done: make(chan struct{})}
	select {
	case q.c <- sub:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-q.done:
		return nil, ErrStopped
	}
	select {
	case <-sub.done:
		return sub.out, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-q.done:
		return nil, ErrStopped
	}
}

// Run runs sub on c in the game loop (Collect when its submitter wants
// the output, else Run) and releases the submitter; it reports whether the
// line asked for the shutdown.
func (sub *Submitted) Run(c *Console) bool {
	var err error
	if sub.collect {
		sub.out, err = c.Collect(sub.caller, sub.line)
	} else {
		err = c.Run(sub.caller, sub.line)
	}
	close(sub.done)
	return err == ErrShutdown
}
