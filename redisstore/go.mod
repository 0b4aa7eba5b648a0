module github.com/gameadmin/admin/redisstore

go 1.26.0

require (
	github.com/gameadmin/admin v0.0.0-20261125111421-43bc594aa5a5
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/gorilla/websocket v1.5.3
	github.com/redis/go-redis/v9 v9.23.0
	github.com/uptrace/bun v1.3.0
)

require (
	github.com/boombuler/barcode v1.0.1-0.20190219062509-6c824513bacc // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/pquerna/otp v1.5.0 // indirect
	github.com/puzpuzpuz/xsync/v3 v3.5.1 // indirect
	github.com/tmthrgd/go-hex v0.0.0-20190904060850-447a3041c3bc // indirect
	github.com/uptrace/bun/dialect/mysqldialect v1.3.0 // indirect
	github.com/uptrace/bun/dialect/pgdialect v1.3.0 // indirect
	github.com/uptrace/bun/dialect/sqlitedialect v1.3.0 // indirect
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/mod v0.33.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

// Inside this repository (go.work off, as CI builds it) the panel is the
// code beside it. A game's module ignores this line and gets the version
// required above, or newer.
replace github.com/gameadmin/admin => ../
