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
	who     string // the administrator of an Admin line (SubmitAdmin)
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
	return q.submit(ctx, &Submitted{caller: caller, line: line, collect: collect})
}

// SubmitAdmin is Submit of a line of an administration page (caller
// Admin, output collected) by who, the page's name for the administrator:
// Run hands who, the line and its result to the loop's audit.
func (q *Queue) SubmitAdmin(ctx context.Context, who, line string) ([]string, error) {
	return q.submit(ctx, &Submitted{caller: Caller{Kind: Admin}, who: who, line: line, collect: true})
}

// submit queues sub and waits until the loop ran it.
func (q *Queue) submit(ctx context.Context, sub *Submitted) ([]string, error) {
	line := sub.line
	if len(line) > MaxLine {
		return nil, ErrLineTooLong
	}
	sub.done = make(chan struct{})
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
// line asked for the shutdown. A line of an administration page
// (SubmitAdmin) is handed to audit with its administrator and result before
// its submitter is released.
func (sub *Submitted) Run(c *Console, audit func(who, line string, err error)) bool {
	var err error
	if sub.collect {
		sub.out, err = c.Collect(sub.caller, sub.line)
	} else {
		err = c.Run(sub.caller, sub.line)
	}
	if sub.who != "" && audit != nil {
		audit(sub.who, sub.line, err)
	}
	close(sub.done)
	return err == ErrShutdown
}
