// Package config reads Loreweave's settings once, from command-line flags and LOREWEAVE_*
// environment variables, into a validated struct. Every setting has a default that makes
// `loreweave serve` work with no configuration at all.
package config

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Plans are the world plans, cheapest first.
var Plans = []string{"free", "pro", "studio"}

// Config is Loreweave's configuration.
type Config struct {
	// DefaultPlan is the plan new worlds get (LOREWEAVE_DEFAULT_PLAN, --default-plan).
	DefaultPlan string
	// BaseURL is the public URL of this instance, no trailing slash (LOREWEAVE_BASE_URL,
	// --base-url). Empty means "derive it from the listen address".
	BaseURL string
	// KeyRateLimit is how many requests a minute one credential (API key, OAuth token or
	// session) may make to the API and the MCP endpoint (LOREWEAVE_RATE_LIMIT_KEY,
	// --rate-limit-key). 0 turns the limit off.
	KeyRateLimit int
	// IPRateLimit is how many requests a minute one client address may make to them
	// (LOREWEAVE_RATE_LIMIT_IP, --rate-limit-ip). 0 turns the limit off.
	IPRateLimit int
}

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{DefaultPlan: "studio", KeyRateLimit: 1200, IPRateLimit: 3000}
}

// Flags holds the flag values until Load reads them.
type Flags struct {
	defaultPlan string
	baseURL     string
	keyRate     string
	ipRate      string
}

// Bind registers Loreweave's flags on fs (the root command's persistent flags).
func Bind(fs *pflag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.defaultPlan, "default-plan", "", "plan of new worlds: free, pro or studio (env LOREWEAVE_DEFAULT_PLAN; default studio)")
	fs.StringVar(&f.baseURL, "base-url", "", "public URL of this instance, e.g. https://lore.example.com (env LOREWEAVE_BASE_URL; default: the listen address)")
	fs.StringVar(&f.keyRate, "rate-limit-key", "", "API and MCP requests a minute per key, token or session; 0 = off (env LOREWEAVE_RATE_LIMIT_KEY; default 1200)")
	fs.StringVar(&f.ipRate, "rate-limit-ip", "", "API and MCP requests a minute per client address; 0 = off (env LOREWEAVE_RATE_LIMIT_IP; default 3000)")
	return f
}

// Load reads flags (which win) and environment variables into a validated Config.
func (f *Flags) Load() (Config, error) {
	c := Default()
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return os.Getenv(env)
	}
	if v := pick(f.defaultPlan, "LOREWEAVE_DEFAULT_PLAN"); v != "" {
		c.DefaultPlan = v
	}
	c.BaseURL = pick(f.baseURL, "LOREWEAVE_BASE_URL")
	for _, r := range []struct {
		raw, name string
		dst       *int
	}{{pick(f.keyRate, "LOREWEAVE_RATE_LIMIT_KEY"), "rate-limit-key", &c.KeyRateLimit}, {pick(f.ipRate, "LOREWEAVE_RATE_LIMIT_IP"), "rate-limit-ip", &c.IPRateLimit}} {
		if r.raw == "" {
			continue
		}
		n, err := strconv.Atoi(r.raw)
		if err != nil {
			return c, fmt.Errorf("config: %s %q is not a whole number", r.name, r.raw)
		}
		*r.dst = n
	}
	return c, c.Validate()
}

// Validate checks every setting and says which one is wrong.
func (c *Config) Validate() error {
	if !slices.Contains(Plans, c.DefaultPlan) {
		return fmt.Errorf("config: default plan %q is not one of %s", c.DefaultPlan, strings.Join(Plans, ", "))
	}
	if c.KeyRateLimit < 0 || c.IPRateLimit < 0 {
		return fmt.Errorf("config: rate limits must be 0 (off) or positive")
	}
	if c.BaseURL != "" {
		c.BaseURL = strings.TrimRight(c.BaseURL, "/")
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("config: base URL %q must be an absolute http(s) URL", c.BaseURL)
		}
	}
	return nil
}
