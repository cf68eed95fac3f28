package sockio

import (
	"testing"
	"time"
)

// TestPacerHandOver: the reader hands its state to the loop once no hold
// runs; an urgent datagram or a busy tick hands it back for PacedHold; a
// quiet tick keeps it with the loop; Stop releases a waiting reader.
func TestPacerHandOver(t *testing.T) {
	var p Pacer
	p.Start(20 * time.Millisecond)
	if p.BeginTick() {
		t.Fatal("the loop reads before the reader handed over")
	}
	waited := make(chan bool)
	go func() { waited <- p.Wait() }()
	for !p.Paced() {
		time.Sleep(time.Millisecond)
	}
	if !p.BeginTick() {
		t.Fatal("paced, but the loop may not read")
	}
	if handed, _ := p.EndTick(PacedBusyDatagrams-1, time.Now()); handed {
		t.Fatal("a quiet tick handed the reading back")
	}
	if !p.BeginTick() || !p.MarkUrgent() || p.MarkUrgent() {
		t.Fatal("MarkUrgent does not report the first urgent datagram once")
	}
	now := time.Now()
	if handed, urgent := p.EndTick(1, now); !handed || !urgent {
		t.Fatalf("urgent tick: handed %v urgent %v", handed, urgent)
	}
	if !<-waited || p.Paced() {
		t.Fatal("the reader was not handed its state back")
	}
	// Within the hold the reader reads itself.
	if p.Wait() {
		t.Fatal("the reader paused within PacedHold")
	}
	// As they come: a tick's time with PacedBusyDatagrams holds again, fewer do not.
	p.contUntil = time.Time{}
	if hold, _, n := p.AfterRead(PacedBusyDatagrams-1, now); hold || n != PacedBusyDatagrams-1 {
		t.Fatalf("below the bound: hold %v count %d", hold, n)
	}
	if hold, urgent, n := p.AfterRead(1, now.Add(time.Millisecond)); !hold || urgent || n != PacedBusyDatagrams {
		t.Fatalf("at the bound: hold %v urgent %v count %d", hold, urgent, n)
	}
	if hold, _, n := p.AfterRead(1, now.Add(time.Second)); hold || n != 1 {
		t.Fatalf("a new window: hold %v count %d", hold, n)
	}
	// Stop releases a reader waiting for the loop.
	p.contUntil = time.Time{}
	go func() { waited <- p.Wait() }()
	for !p.Paced() {
		time.Sleep(time.Millisecond)
	}
	p.Stop()
	if <-waited {
		t.Fatal("Wait reported the loop read after Stop")
	}
}
