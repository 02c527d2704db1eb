package store_test

import (
	"testing"
	"time"

	"github.com/loreweave/loreweave/app/apptest"
	"github.com/loreweave/loreweave/app/store"
)

// Deliveries: one per (webhook, outbox row) whatever the retries of the hand-over; a
// webhook's due deliveries come one at a time, oldest first; five deliveries failed for good
// disable it; purging a world takes its webhooks and logs; old finished deliveries are pruned.
func TestWebhookDeliveryStore(t *testing.T) {
	s := apptest.Start(t)
	st := s.LW.Store
	ann := s.NewUser("Ann")
	w := s.World(ann, "Eldoria")
	h, err := st.CreateWebhook(w, "https://93.184.215.14/hook", []string{"era.created", "document.created", "era.created"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Events) != 2 || h.Events[0] != "document.created" || !h.Enabled || len(h.Secret) != 70 {
		t.Fatalf("webhook %+v", h)
	}
	s.LW.Webhooks.Stop() // this test hands deliveries over itself

	cursor, err := st.WebhookCursor()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(seq int64) store.Delivery {
		return store.Delivery{ID: store.NewDeliveryID(), WebhookID: h.ID, Seq: seq, Kind: "document.created", Payload: `{}`}
	}
	ds := []store.Delivery{mk(cursor + 1), mk(cursor + 2), mk(cursor + 3), mk(cursor + 4), mk(cursor + 5)}
	if err := st.EnqueueDeliveries(cursor, cursor+5, ds); err != nil {
		t.Fatal(err)
	}
	// The same hand-over again is refused: the cursor moved.
	if err := st.EnqueueDeliveries(cursor, cursor+5, []store.Delivery{mk(cursor + 1)}); err == nil {
		t.Fatal("a second hand-over from the same cursor was accepted")
	}
	if n := s.Count("webhook_deliveries", ""); n != 5 {
		t.Fatalf("%d deliveries, want 5", n)
	}
	for i := range 5 {
		due, err := st.DueDeliveries(time.Now().Add(time.Second), 10)
		if err != nil || len(due) != 1 || due[0].ID != ds[i].ID {
			t.Fatalf("due %d: %+v %v", i, due, err)
		}
		disabled, err := st.RecordAttempt(due[0].Delivery, store.Attempt{Status: 500, Error: "boom", GiveUp: true, DisableAfter: 5})
		if err != nil || disabled != (i == 4) {
			t.Fatalf("attempt %d: disabled %v, %v", i, disabled, err)
		}
	}
	h, _ = st.Webhook(w, h.ID)
	if h.Enabled || h.Failures != 5 || h.DisabledReason == "" {
		t.Fatalf("after five failures: %+v", h)
	}
	on := true
	if h, err = st.UpdateWebhook(h, store.WebhookChange{Enabled: &on}); err != nil || h.Failures != 0 || h.DisabledReason != "" {
		t.Fatalf("enabled again: %+v %v", h, err)
	}

	if _, err := s.PB.DB().NewQuery("UPDATE webhook_deliveries SET created = '2000-01-01 00:00:00.000Z'").Execute(); err != nil {
		t.Fatal(err)
	}
	if n, err := st.PruneDeliveries(time.Now().Add(-store.DeliveryKeep)); err != nil || n != 5 {
		t.Fatalf("pruned %d (%v), want 5", n, err)
	}
	if err := store.DeleteWorldWebhooks(s.PB.DB(), w); err != nil {
		t.Fatal(err)
	}
	if n := s.Count("webhooks", ""); n != 0 {
		t.Fatalf("%d webhooks left after purging the world", n)
	}
}
