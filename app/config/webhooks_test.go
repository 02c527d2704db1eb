package config_test

import (
	"strings"
	"testing"
	"time"
)

func TestWebhookSettings(t *testing.T) {
	c, err := load(t, nil, nil)
	if err != nil || c.WebhooksAllowPrivate || c.WebhookRetryBase != 30*time.Second {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		env   map[string]string
		allow bool
		base  time.Duration
		err   string
	}{
		{"flag", []string{"--webhooks-allow-private"}, nil, true, 30 * time.Second, ""},
		{"environment", nil, map[string]string{"LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE": "true", "LOREWEAVE_WEBHOOKS_RETRY_BASE": "50ms"}, true, 50 * time.Millisecond, ""},
		{"off", nil, map[string]string{"LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE": "false"}, false, 30 * time.Second, ""},
		{"not a boolean", nil, map[string]string{"LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE": "sometimes"}, false, 0, "LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE"},
		{"not a duration", nil, map[string]string{"LOREWEAVE_WEBHOOKS_RETRY_BASE": "30"}, false, 0, "LOREWEAVE_WEBHOOKS_RETRY_BASE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc.args, tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || c.WebhooksAllowPrivate != tc.allow || c.WebhookRetryBase != tc.base {
				t.Fatalf("%+v %v", c, err)
			}
		})
	}
}
