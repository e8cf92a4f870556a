package golden

import "testing"

func TestCases(t *testing.T) {
	cs := Cases()
	if len(cs) != 7 {
		t.Fatalf("%d golden cases, want the 7 of golden.txt", len(cs))
	}
	for _, c := range cs {
		if c.From == "" || c.To == "" || c.Want == "" {
			t.Errorf("incomplete case %+v", c)
		}
	}
}
