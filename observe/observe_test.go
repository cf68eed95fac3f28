package observe

import "testing"

func TestObserversInOrder(t *testing.T) {
	var o Observers
	if o.Any() {
		t.Fatal("an empty list has observers")
	}
	var got []int
	o.Add(func(e Event) { got = append(got, 1, e.ClientID) })
	o.Add(func(e Event) { got = append(got, 2, int(e.Kind)) })
	o.Emit(Event{Kind: EventPlayerLeave, ClientID: 7})
	if !o.Any() || len(got) != 4 || got[0] != 1 || got[1] != 7 || got[2] != 2 || got[3] != int(EventPlayerLeave) {
		t.Errorf("calls %v", got)
	}
}
