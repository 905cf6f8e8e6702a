// Command httpserver serves the files of its working directory over HTTP
// on a free loopback port until it is killed, and says so on stdout once
// it listens: "Serving HTTP on 127.0.0.1 port N". It stands in for
// `python3 -m http.server` where tests need a long-running server, so
// that they need nothing but Go (spawntest.HTTPServer builds it).
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	if err := serve(); err != nil {
		fmt.Fprintln(os.Stderr, "httpserver:", err)
		os.Exit(1)
	}
}

func serve() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on a loopback port: %w", err)
	}
	fmt.Printf("Serving HTTP on 127.0.0.1 port %d\n", l.Addr().(*net.TCPAddr).Port)
	return http.Serve(l, http.FileServer(http.Dir(".")))
}
