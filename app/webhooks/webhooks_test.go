package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://93.184.215.14/hook": true, "http://93.184.215.14:8080/x?y=1": true,
		"http://127.0.0.1/": false, "http://LOCALHOST./": false, "http://api.localhost/": false, "http://[::1]:80/": false,
		"http://10.0.0.1/": false, "ftp://93.184.215.14/": false, "https://u:p@93.184.215.14/": false, "//93.184.215.14/": false, "https:///x": false,
	} {
		if err := checkURL(context.Background(), raw, false); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
	if err := checkURL(context.Background(), "http://127.0.0.1/", true); err != nil {
		t.Errorf("private allowed: %v", err)
	}
	if _, err := newClient(time.Second, false).Get("http://127.0.0.1:1/"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("dial loopback: %v", err)
	}
}

func TestSignVerify(t *testing.T) {
	body := []byte(`{"id":"d1","type":"ping"}`)
	now := time.Now()
	h := Sign("whsec_abc", now, body)
	if !strings.HasPrefix(h, "t=") || !strings.Contains(h, ",v1=") {
		t.Fatalf("header %q", h)
	}
	if err := Verify("whsec_abc", h, body, time.Minute); err != nil {
		t.Error(err)
	}
	if Verify("whsec_other", h, body, time.Minute) == nil || Verify("whsec_abc", h, []byte(`{}`), time.Minute) == nil {
		t.Error("a wrong secret or body verifies")
	}
	if Verify("whsec_abc", Sign("whsec_abc", now.Add(-time.Hour), body), body, time.Minute) == nil {
		t.Error("an old signature verifies")
	}
}
