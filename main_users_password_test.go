package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// TestUsersPasswordCommand runs `loreweave users password EMAIL` from a second process with the
// password on stdin: the running server takes the new password at once, and tokens issued
// before stop working. A password given as an argument is refused with a failing status.
func TestUsersPasswordCommand(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	base, _, _ := serve(t, bin, dir)
	if _, err := run(t, bin, "users", "create", "--dir", dir, "--email", "ann@example.test", "--password", "long enough pw"); err != nil {
		t.Fatal(err)
	}
	signIn := func(password string) (int, string) {
		status, m := call(t, "POST", base+"/api/collections/users/auth-with-password", "", `{"identity":"ann@example.test","password":"`+password+`"}`)
		token, _ := m["token"].(string)
		return status, token
	}
	status, token := signIn("long enough pw")
	if status != http.StatusOK {
		t.Fatalf("sign in: %d", status)
	}

	if _, err := run(t, bin, "users", "password", "--dir", dir, "ann@example.test", "a new password"); err == nil {
		t.Fatal("a password given as an argument was accepted")
	}
	cmd := exec.Command(bin, "users", "password", "--dir", dir, "ann@example.test")
	cmd.Stdin = strings.NewReader("a new password\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("users password: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "password of ann@example.test changed") {
		t.Fatalf("output: %s", out.String())
	}
	req, _ := http.NewRequest("POST", base+"/api/collections/users/auth-refresh", nil)
	req.Header.Set("Authorization", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a token from before the new password: %d, want 401", res.StatusCode)
	}
	if status, _ := signIn("long enough pw"); status == http.StatusOK {
		t.Fatal("the old password still works")
	}
	if status, _ := signIn("a new password"); status != http.StatusOK {
		t.Fatalf("the new password: %d", status)
	}
}
