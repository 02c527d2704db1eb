package api_test

import "github.com/loreweave/loreweave/app/apptest"

func del(key, path string) apptest.Request {
	return apptest.Request{Method: "DELETE", Path: path, Key: key}
}
