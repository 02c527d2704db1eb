package publicnet

import (
	"net/netip"
	"strings"
	"testing"
)

func TestNonPublic(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.0.0.1": "private-network", "172.16.5.4": "private-network",
		"192.168.1.1": "private-network", "169.254.169.254": "link-local", "fe80::1": "link-local", "fd12::1": "unique-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "224.0.0.251": "multicast", "ff02::1": "multicast", "100.64.1.1": "shared",
		"::ffff:127.0.0.1": "loopback", "64:ff9b::a00:1": "private-network", "255.255.255.255": "broadcast",
		"93.184.215.14": "", "2606:2800:21f:cb07:6820:80da:af6b:8b2c": "", "8.8.8.8": "",
	} {
		got := NonPublic(netip.MustParseAddr(addr))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

func TestDialControl(t *testing.T) {
	if err := dialControl("allow it")("tcp", "127.0.0.1:80", nil); err == nil || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "allow it") {
		t.Errorf("dial loopback: %v", err)
	}
	if err := dialControl("")("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("dial public: %v", err)
	}
}
