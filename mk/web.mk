# The example web page (examples/web/): TypeScript messages and service descriptor generated
# from proto/ by buf with protoc-gen-es, type-checked by tsc, bundled with @connectrpc/connect-web
# and @bufbuild/protobuf by esbuild into examples/web/dist/ (index.html, style.css, app.js). All
# the tools are the npm packages pinned in package-lock.json (`make tools`). The generated code
# and the bundle are build products (gitignored); each step runs again only when its inputs
# changed. The browser test (tests/tests/e2e/web_example.rs) serves dist/.
#
# Include from the Makefile:   include mk/web.mk   (after `BUF :=` is set)

_WEB_DEFAULT_GOAL := $(.DEFAULT_GOAL)

WEB := examples/web
WEB_GEN := $(WEB)/gen
WEB_DIST := $(WEB)/dist
NODE_BIN := node_modules/.bin

# Written after buf generate; buf's `clean: true` empties $(WEB_GEN) first.
WEB_GEN_STAMP := $(WEB_GEN)/.generated
WEB_PROTOS := $(wildcard proto/arbiter/v1/*.proto) $(wildcard $(WEB)/proto/google/rpc/*.proto)
WEB_SOURCES := $(wildcard $(WEB)/src/*.ts)

.PHONY: web-example

web-example: $(WEB_DIST)/index.html $(WEB_DIST)/style.css $(WEB_DIST)/app.js

# $(BUF) stands for node_modules as `npm ci` installed it from package-lock.json.
$(WEB_GEN_STAMP): $(BUF) buf.yaml $(WEB)/buf.gen.yaml $(WEB_PROTOS)
	$(BUF) generate --template $(WEB)/buf.gen.yaml
	@touch $@

# tsc checks the types (the generated messages' fields, the client's methods); esbuild, which
# only strips them, bundles the page's script with the libraries.
$(WEB_DIST)/app.js: $(BUF) $(WEB_GEN_STAMP) $(WEB_SOURCES) $(WEB)/tsconfig.json
	$(NODE_BIN)/tsc -p $(WEB)/tsconfig.json
	$(NODE_BIN)/esbuild $(WEB)/src/main.ts --bundle --format=iife --target=es2022 \
		--minify --sourcemap --log-level=warning --outfile=$@

$(WEB_DIST)/index.html $(WEB_DIST)/style.css: $(WEB_DIST)/%: $(WEB)/%
	@mkdir -p $(@D)
	cp $< $@

ifneq ($(words $(MAKEFILE_LIST)),1)
.DEFAULT_GOAL := $(_WEB_DEFAULT_GOAL)
endif
