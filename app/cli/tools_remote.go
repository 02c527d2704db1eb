package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
)

// server is a running Loreweave's API, for the tools commands given --url.
type server struct {
	url, key string
}

var apiClient = &http.Client{Timeout: time.Minute}

func (s server) install(world string, manifest []byte) (store.ToolInfo, bool, error) {
	var info store.ToolInfo
	status, err := s.call(http.MethodPost, "/api/v1/worlds/"+url.PathEscape(world)+"/tools", manifest, &info)
	return info, status == http.StatusOK, err
}

func (s server) list(world string) ([]store.ToolInfo, error) {
	var raw json.RawMessage
	if _, err := s.call(http.MethodGet, "/api/v1/worlds/"+url.PathEscape(world)+"/tools", nil, &raw); err != nil {
		return nil, err
	}
	// A list answers {"items": [...]} as the API's other lists do; a bare array is read too.
	var page struct {
		Items []store.ToolInfo `json:"items"`
	}
	if err := json.Unmarshal(raw, &page); err == nil {
		return page.Items, nil
	}
	var tools []store.ToolInfo
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, fmt.Errorf("%s answered a tool list this command does not understand: %v", s.url, err)
	}
	return tools, nil
}

func (s server) uninstall(world, name string) error {
	_, err := s.call(http.MethodDelete, "/api/v1/worlds/"+url.PathEscape(world)+"/tools/"+url.PathEscape(name), nil, nil)
	return err
}

// call sends one API request with the key and decodes a successful answer into out. An
// error answer is returned as the *apierr.Error it carries.
func (s server) call(method, path string, body []byte, out any) (int, error) {
	key := s.key
	if key == "" {
		key = os.Getenv("LOREWEAVE_KEY")
	}
	if key == "" {
		return 0, fmt.Errorf("--url needs an API key: pass --key or set LOREWEAVE_KEY")
	}
	base, err := url.Parse(s.url)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return 0, fmt.Errorf("--url must be a server's address such as https://lore.example.com, not %q", s.url)
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, strings.TrimRight(s.url, "/")+path, reader)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := apiClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode >= 300 {
		var e struct {
			Error map[string]any `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == nil {
			return res.StatusCode, fmt.Errorf("%s %s: %s", method, path, res.Status)
		}
		code, _ := e.Error["code"].(string)
		msg, _ := e.Error["message"].(string)
		delete(e.Error, "code")
		delete(e.Error, "message")
		return res.StatusCode, &apierr.Error{Status: res.StatusCode, Code: code, Message: msg, Details: e.Error}
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: the answer is not the JSON expected: %v", method, path, err)
		}
	}
	return res.StatusCode, nil
}
