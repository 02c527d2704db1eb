package config_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/loreweave/loreweave/app/config"
)

// load reads a configuration from command-line arguments and environment variables, as
// `loreweave serve` does.
func load(t *testing.T, args []string, env map[string]string) (config.Config, error) {
	t.Helper()
	for _, name := range []string{"LOREWEAVE_DEFAULT_PLAN", "LOREWEAVE_SIGNUP", "LOREWEAVE_BASE_URL", "LOREWEAVE_RATE_LIMIT_KEY", "LOREWEAVE_RATE_LIMIT_IP",
		"LOREWEAVE_RATE_LIMIT_LOGIN", "LOREWEAVE_RATE_LIMIT_LOGIN_IP", "LOREWEAVE_RATE_LIMIT_SIGNUP", "LOREWEAVE_MAX_STREAMS_IP",
		"LOREWEAVE_MAX_IMAGE_MIB", "LOREWEAVE_MAX_MODEL_MIB", "LOREWEAVE_WEBHOOKS_ALLOW_PRIVATE", "LOREWEAVE_WEBHOOKS_RETRY_BASE", "LOREWEAVE_MAX_IMPORT_MIB", "LOREWEAVE_MEMORY_LIMIT_MIB"} {
		t.Setenv(name, env[name])
	}
	fs := pflag.NewFlagSet("loreweave", pflag.ContinueOnError)
	flags := config.Bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return flags.Load()
}

func TestDefaults(t *testing.T) {
	c, err := load(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, config.Default()) {
		t.Fatalf("nothing set: %+v, want %+v", c, config.Default())
	}
	if c.LoginRateLimit != 10 || c.LoginIPRateLimit != 50 || c.SignupRateLimit != 20 {
		t.Fatalf("sign-in and sign-up limits: %+v", c)
	}
	if c.Signup != "open" || !c.SignupOpen() {
		t.Fatalf("sign-up is not open by default: %q", c.Signup)
	}
}

func TestSignupSetting(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		want    string // the mode, or a word of the error
		wantErr bool
	}{
		{"environment", nil, map[string]string{"LOREWEAVE_SIGNUP": "closed"}, "closed", false},
		{"flag", []string{"--signup", "closed"}, nil, "closed", false},
		{"flag wins", []string{"--signup", "open"}, map[string]string{"LOREWEAVE_SIGNUP": "closed"}, "open", false},
		{"unknown value", nil, map[string]string{"LOREWEAVE_SIGNUP": "invite"}, "signup", true},
		{"case matters", []string{"--signup", "Closed"}, nil, "signup", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc.args, tc.env)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "open, closed") {
					t.Fatalf("error %v, want one naming %q and the values", err, tc.want)
				}
				return
			}
			if err != nil || c.Signup != tc.want || c.SignupOpen() != (tc.want == "open") {
				t.Fatalf("got %q (open %v), %v; want %q", c.Signup, c.SignupOpen(), err, tc.want)
			}
		})
	}
}

func TestRateLimitSettings(t *testing.T) {
	c, err := load(t, []string{"--rate-limit-login", "3", "--rate-limit-signup", "0"},
		map[string]string{"LOREWEAVE_RATE_LIMIT_LOGIN": "7", "LOREWEAVE_RATE_LIMIT_LOGIN_IP": "30", "LOREWEAVE_RATE_LIMIT_SIGNUP": "5", "LOREWEAVE_MAX_STREAMS_IP": "12"})
	if err != nil {
		t.Fatal(err)
	}
	// Flags win over the environment; 0 is a value (off), not "unset".
	if c.LoginRateLimit != 3 || c.LoginIPRateLimit != 30 || c.SignupRateLimit != 0 || c.StreamIPLimit != 12 {
		t.Fatalf("got %+v", c)
	}

	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"login not a number", []string{"--rate-limit-login", "ten"}, nil, "rate-limit-login"},
		{"login per address negative", nil, map[string]string{"LOREWEAVE_RATE_LIMIT_LOGIN_IP": "-1"}, "rate limits"},
		{"sign-up negative", []string{"--rate-limit-signup", "-5"}, nil, "rate limits"},
		{"streams per address negative", []string{"--max-streams-ip", "-1"}, nil, "rate limits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := load(t, tc.args, tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestUploadLimitSettings(t *testing.T) {
	c, err := load(t, nil, nil)
	if err != nil || c.MaxImageBytes != 25<<20 || c.MaxModelBytes != 100<<20 {
		t.Fatalf("defaults: %d %d, %v", c.MaxImageBytes, c.MaxModelBytes, err)
	}
	c, err = load(t, []string{"--max-image-mib", "3"}, map[string]string{"LOREWEAVE_MAX_IMAGE_MIB": "7", "LOREWEAVE_MAX_MODEL_MIB": "250"})
	if err != nil || c.MaxImageBytes != 3<<20 || c.MaxModelBytes != 250<<20 {
		t.Fatalf("set: %d %d, %v", c.MaxImageBytes, c.MaxModelBytes, err)
	}
	for _, bad := range []string{"0", "-1", "big", "1.5"} {
		if _, err := load(t, []string{"--max-model-mib", bad}, nil); err == nil || !strings.Contains(err.Error(), "max-model-mib") {
			t.Errorf("--max-model-mib %s: %v", bad, err)
		}
	}
}

func TestImportLimitSetting(t *testing.T) {
	c, err := load(t, nil, nil)
	if err != nil || c.MaxImportBytes != 2048<<20 {
		t.Fatalf("default: %d, %v", c.MaxImportBytes, err)
	}
	if c, err = load(t, nil, map[string]string{"LOREWEAVE_MAX_IMPORT_MIB": "64"}); err != nil || c.MaxImportBytes != 64<<20 {
		t.Fatalf("env: %d, %v", c.MaxImportBytes, err)
	}
	if c, err = load(t, []string{"--max-import-mib", "8"}, map[string]string{"LOREWEAVE_MAX_IMPORT_MIB": "64"}); err != nil || c.MaxImportBytes != 8<<20 {
		t.Fatalf("flag: %d, %v", c.MaxImportBytes, err)
	}
	if _, err := load(t, []string{"--max-import-mib", "0"}, nil); err == nil || !strings.Contains(err.Error(), "max-import-mib") {
		t.Fatalf("0: %v", err)
	}
}

func TestMemoryLimitSetting(t *testing.T) {
	c, err := load(t, nil, nil)
	if err != nil || c.MemoryLimit != 0 {
		t.Fatalf("default: %d, %v", c.MemoryLimit, err)
	}
	if c, err = load(t, nil, map[string]string{"LOREWEAVE_MEMORY_LIMIT_MIB": "512"}); err != nil || c.MemoryLimit != 512<<20 {
		t.Fatalf("env: %d, %v", c.MemoryLimit, err)
	}
	if c, err = load(t, []string{"--memory-limit-mib", "256"}, map[string]string{"LOREWEAVE_MEMORY_LIMIT_MIB": "512"}); err != nil || c.MemoryLimit != 256<<20 {
		t.Fatalf("flag: %d, %v", c.MemoryLimit, err)
	}
	for _, bad := range []string{"-1", "lots", "1.5"} {
		if _, err := load(t, []string{"--memory-limit-mib", bad}, nil); err == nil || !strings.Contains(err.Error(), "memory-limit-mib") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
