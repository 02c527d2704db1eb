package webhooks

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestNonPublic(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.0.0.1": "private-network", "172.16.5.4": "private-network",
		"192.168.1.1": "private-network", "169.254.169.254": "link-local", "fe80::1": "link-local", "fd12::1": "unique-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "224.0.0.251": "multicast", "ff02::1": "multicast", "100.64.1.1": "shared",
		"::ffff:127.0.0.1": "loopback", "64:ff9b::a00:1": "private-network", "255.255.255.255": "broadcast",
		"93.184.215.14": "", "2606:2800:21f:cb07:6820:80da:af6b:8b2c": "", "8.8.8.8": "",
	} {
		got := nonPublic(netip.MustParseAddr(addr))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

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
	if err := dialControl("tcp", "127.0.0.1:80", nil); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("dial loopback: %v", err)
	}
	if err := dialControl("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("dial public: %v", err)
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
