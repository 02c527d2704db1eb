package ops

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkApplyCard applies the write bench's batches: n card.setProperty ops to a card with
// ten properties.
func BenchmarkApplyCard(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("%d ops", n), func(b *testing.B) {
			card := Empty("card").(*Card)
			for k := range 10 {
				card.Properties = append(card.Properties, Property{Key: fmt.Sprintf("k%d", k), Value: "value"})
			}
			ops := make([]json.RawMessage, n)
			for k := range ops {
				ops[k] = json.RawMessage(fmt.Sprintf(`{"key":"k%d","op":"card.setProperty","value":"value 1 of property %d"}`, k, k))
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(card, Request{Version: 1, Ops: ops}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
