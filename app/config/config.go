// Package config reads Loreweave's settings once, from command-line flags and LOREWEAVE_*
// environment variables, into a validated struct. Every setting has a default that makes
// `loreweave serve` work with no configuration at all.
package config

import (
	"fmt"
	"net/url"
	"os"
	"slices"
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
}

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{DefaultPlan: "studio"}
}

// Flags holds the flag values until Load reads them.
type Flags struct {
	defaultPlan string
	baseURL     string
}

// Bind registers Loreweave's flags on fs (the root command's persistent flags).
func Bind(fs *pflag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.defaultPlan, "default-plan", "", "plan of new worlds: free, pro or studio (env LOREWEAVE_DEFAULT_PLAN; default studio)")
	fs.StringVar(&f.baseURL, "base-url", "", "public URL of this instance, e.g. https://lore.example.com (env LOREWEAVE_BASE_URL; default: the listen address)")
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
	return c, c.Validate()
}

// Validate checks every setting and says which one is wrong.
func (c *Config) Validate() error {
	if !slices.Contains(Plans, c.DefaultPlan) {
		return fmt.Errorf("config: default plan %q is not one of %s", c.DefaultPlan, strings.Join(Plans, ", "))
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
