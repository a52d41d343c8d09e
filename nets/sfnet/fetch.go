package sfnet

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultServer is Stockfish's public net server: GET
// <server>/api/nn/<name> answers with the net file (the URL Stockfish
// itself prints when a net is missing).
const DefaultServer = "https://tests.stockfishchess.org"

// maxNetBytes bounds a download (Stockfish 18's big net is 109 MB).
const maxNetBytes = 1 << 30

// Fetch downloads the net called name from server (DefaultServer if ""),
// checks it against its name and stores it in the cache, returning the
// cached path. A net already cached is not downloaded again.
func Fetch(ctx context.Context, server, name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("fetch: %q is not a Stockfish net name (nn-<12 hex digits>.nnue)", name)
	}
	if p, err := Cached(name); err == nil {
		return p, nil
	}
	data, err := Download(ctx, server, name)
	if err != nil {
		return "", err
	}
	return Store(name, data)
}

// Download gets the net called name from server and checks it against
// its name, without caching it.
func Download(ctx context.Context, server, name string) ([]byte, error) {
	if server == "" {
		server = DefaultServer
	}
	url := strings.TrimRight(server, "/") + "/api/nn/" + name
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", name, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, fmt.Errorf("fetch %s: %s answered %s (%q)", name, url, resp.Status, strings.TrimSpace(string(msg)))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxNetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s from %s: %w", name, url, err)
	}
	if len(data) > maxNetBytes {
		return nil, fmt.Errorf("fetch %s: %s sent more than %d bytes", name, url, maxNetBytes)
	}
	if resp.ContentLength >= 0 && int64(len(data)) != resp.ContentLength {
		return nil, fmt.Errorf("fetch %s: %s sent %d of %d bytes", name, url, len(data), resp.ContentLength)
	}
	if err := CheckName(name, data, "the file "+url+" sent"); err != nil {
		return nil, err
	}
	return data, nil
}
