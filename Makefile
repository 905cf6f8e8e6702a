.PHONY: build install test bench

build:
	go build -o gemini-ls ./cmd/gemini-ls

install:
	go install ./cmd/gemini-ls

test:
	go test -race -count=1 ./...

bench:
	bash bench/run.sh
