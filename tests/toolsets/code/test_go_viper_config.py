"""Go settings read through viper: each key a service's code reads (a ``Get*`` key, a field path of the struct
``viper.Unmarshal`` fills) is listed in its ``describe`` with the ``SetDefault`` value and the environment variable
viper binds to it, beside the deployment line that sets that variable."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.index.graph import CodeGraph
from graphlore.toolsets.code.services.viper_config import keys_read, read_viper

_IMPORT = 'import (\n\t"strings"\n\n\t"github.com/spf13/viper"\n)\n\n'


def test_a_field_path_of_the_unmarshalled_struct_is_its_key_with_default_and_automatic_variable():
    """Nested anonymous structs without tags: the key is the lower-cased path (viper matches keys in any case);
    ``AutomaticEnv`` with the ``.`` -> ``_`` replacer names the variable."""
    setup = (_IMPORT + "type Config struct {\n\tOrders *OrdersConfig `mapstructure:\"orders\"`\n}\n\n"
             "type OrdersConfig struct {\n\tGrpc struct {\n\t\tServer struct {\n\t\t\tPort string\n\t\t}\n\t}\n"
             "\tMaxItems int64\n}\n\nfunc Load() (*Config, error) {\n"
             '\tviper.SetDefault("orders.grpc.server.port", "4100")\n'
             '\tviper.SetDefault("orders.maxItems", 50)\n'
             '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n\tviper.AutomaticEnv()\n'
             "\tvar c Config\n\terr := viper.Unmarshal(&c)\n\treturn &c, err\n}\n")
    use = "package orders\n\nfunc Listen(cfg *config.Config) string {\n\treturn cfg.Orders.Grpc.Server.Port\n}\n"
    found = read_viper({"config/config.go": setup, "orders/server.go": use})
    assert found is not None
    assert found.defaults["orders.grpc.server.port"] == ("4100", "config/config.go:21")
    assert found.defaults["orders.maxitems"] == ("50", "config/config.go:22")
    assert keys_read(use, found) == [("orders.grpc.server.port", "Orders.Grpc.Server.Port", 4)]
    assert found.variable("orders.grpc.server.port") == "ORDERS_GRPC_SERVER_PORT"


def test_mapstructure_tags_named_types_and_squash_map_a_field_to_its_key():
    """A tag renames a field's key; a named struct type is followed; an embedded ``,squash`` struct adds its
    fields to its parent's level."""
    setup = (_IMPORT + "type Common struct {\n\tLogLevel string `mapstructure:\"log_level\"`\n}\n\n"
             "type Server struct {\n\tListenPort int `mapstructure:\"listen_port\"`\n}\n\n"
             "type Settings struct {\n\tCommon `mapstructure:\",squash\"`\n"
             "\tHTTP Server `mapstructure:\"http\"`\n}\n\n"
             "func Read() Settings {\n\tcfg := Settings{}\n\t_ = viper.Unmarshal(&cfg)\n\treturn cfg\n}\n")
    found = read_viper({"settings.go": setup})
    assert found is not None
    assert found.paths == {"LogLevel": "log_level", "HTTP.ListenPort": "http.listen_port"}
    assert keys_read("func use(s Settings) {\n\tx := s.HTTP.ListenPort\n\ty := s.LogLevel\n}\n", found) == [
        ("http.listen_port", "HTTP.ListenPort", 2), ("log_level", "LogLevel", 3)]


def test_a_get_call_reads_its_key_and_the_prefix_and_bind_env_name_the_variable():
    """``viper.GetString("a.b")`` reads the key; ``SetEnvPrefix`` prefixes the automatic name; ``BindEnv`` with a
    name binds that name, without one the automatic name (prefix and replacer applied)."""
    setup = (_IMPORT + "func init() {\n\tviper.SetEnvPrefix(\"shop\")\n"
             '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))\n'
             '\tviper.BindEnv("db.url", "DATABASE_URL")\n\tviper.BindEnv("cache.ttl-seconds")\n}\n\n'
             'func Connect() string {\n\treturn viper.GetString("db.url") + viper.GetString("cache.ttl-seconds")\n}\n')
    found = read_viper({"main.go": setup})
    assert found is not None
    assert [key for key, _, _ in keys_read(setup, found)] == ["db.url", "cache.ttl-seconds"]
    assert found.variable("db.url") == "DATABASE_URL"
    assert found.variable("cache.ttl-seconds") == "SHOP_CACHE_TTL_SECONDS"
    assert found.variable("other.key") is None   # no AutomaticEnv: an unbound key has no variable


def test_a_project_without_viper_reads_nothing():
    assert read_viper({"main.go": 'package main\n\nimport "os"\n\nfunc main() { _ = os.Getenv("X") }\n'}) is None


def test_a_service_describe_lists_the_viper_keys_its_code_reads(tmp_path: Path):
    """End to end: two Go services of one module share a viper config package; each service lists only the keys
    its own code reads, the deployment's value of the bound variable beside it."""
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "pkg/config/config.go": (
            "package config\n\n" + _IMPORT
            + "type Config struct {\n\tBilling *Billing `mapstructure:\"billing\"`\n"
              "\tStock *Stock `mapstructure:\"stock\"`\n}\n\n"
              "type Billing struct {\n\tGrpc struct {\n\t\tPort string\n\t}\n}\n\n"
              "type Stock struct {\n\tTopic string\n}\n\n"
              "func New() (*Config, error) {\n"
              '\tviper.SetDefault("billing.grpc.port", "4300")\n'
              '\tviper.SetDefault("stock.topic", "stock.events")\n'
              '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n\tviper.AutomaticEnv()\n'
              "\tvar c Config\n\terr := viper.Unmarshal(&c)\n\treturn &c, err\n}\n"),
        "cmd/billing/main.go": ('package main\n\nimport (\n\t"fmt"\n\n\t"example.com/shop/pkg/config"\n)\n\n'
                                "func main() {\n\tc, _ := config.New()\n\tfmt.Println(c.Billing.Grpc.Port)\n}\n"),
        "cmd/stock/main.go": ('package main\n\nimport (\n\t"fmt"\n\n\t"example.com/shop/pkg/config"\n)\n\n'
                              "func main() {\n\tc, _ := config.New()\n\tfmt.Println(c.Stock.Topic)\n}\n"),
        "docker-compose.yaml": ("services:\n  billing:\n    build: {context: ., dockerfile: billing.Dockerfile}\n"
                                "    environment:\n      BILLING_GRPC_PORT: '5000'\n"
                                "  stock:\n    build: {context: ., dockerfile: stock.Dockerfile}\n"),
        "billing.Dockerfile": "FROM golang:1.21\nCOPY . /app\nWORKDIR /app\nRUN go build -o /bin/app ./cmd/billing\n",
        "stock.Dockerfile": "FROM golang:1.21\nCOPY . /app\nWORKDIR /app\nRUN go build -o /bin/app ./cmd/stock\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    config = {n.name: n.props.get("config", []) for n in nodes.values() if n.kind == "microservice"}
    billing = config["billing"]
    assert ("billing.grpc.port: 4300 (viper default, pkg/config/config.go:25); read as Billing.Grpc.Port "
            "(cmd/billing/main.go:11); environment BILLING_GRPC_PORT overrides it") in billing
    assert any("BILLING_GRPC_PORT=5000" in line for line in billing)
    assert not any("stock.topic" in line for line in billing)
    assert any(line.startswith("stock.topic: stock.events (viper default") for line in config["stock"])


def test_the_config_file_viper_reads_gives_its_value_per_key(tmp_path: Path):
    """``SetConfigName`` with ``AddConfigPath`` (each of viper's suffixes tried, from the project root), and
    ``SetConfigFile`` (a TOML file beside the calling file): each key's value there, with ``file:line`` where the
    format has lines; a name held in a variable is no file read."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/app.yaml").write_text("orders:\n  grpc:\n    port: 4200\n")
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc/extra.toml").write_text('[cache]\nttl = "30s"\n')
    setup = (_IMPORT + 'func init() {\n\tviper.SetConfigName("app")\n\tviper.AddConfigPath("./configs")\n'
             '\tviper.AddConfigPath("/etc/app")\n\tviper.SetConfigFile("extra.toml")\n'
             "\tviper.SetConfigFile(flagValue)\n}\n")
    found = read_viper({"svc/setup.go": setup}, tmp_path)
    assert found is not None
    assert found.files == {"orders.grpc.port": {"configs/app.yaml:3": "4200"},
                           "cache.ttl": {"svc/extra.toml": "30s"}}


def test_a_credential_keys_default_and_file_value_are_redacted(tmp_path: Path):
    """``jwt.secret`` and ``s3.secretKey`` (camelCase, lost in viper's lower-cased key) are credentials: their
    values are never shown; an address beside them is."""
    (tmp_path / "app.yaml").write_text("s3:\n  secretKey: abc123\n  endpoint: http://minio:9000\n")
    setup = (_IMPORT + 'func init() {\n\tviper.SetConfigFile("app.yaml")\n'
             '\tviper.SetDefault("jwt.secret", "replaceme")\n\tviper.SetDefault("s3.secretKey", "changeit")\n}\n\n'
             'func Use() {\n\t_ = viper.GetString("jwt.secret") + viper.GetString("s3.secretKey")'
             ' + viper.GetString("s3.endpoint")\n}\n')
    (tmp_path / "go.mod").write_text("module example.com/app\n\ngo 1.21\n")
    (tmp_path / "main.go").write_text("package main\n\n" + setup)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    lines = [line for n in nodes.values() if n.kind == "microservice" for line in n.props.get("config", [])]
    assert "s3.secretKey: redacted (app.yaml:2)" in lines   # the file's own listing (app_config) redacts it too
    shown = "\n".join(lines)
    assert "jwt.secret: redacted (viper default" in shown
    assert "s3.secretkey: redacted (viper default" in shown and "config file app.yaml:2 sets redacted" in shown
    assert "replaceme" not in shown and "changeit" not in shown and "abc123" not in shown
    assert "config file app.yaml:3 sets http://minio:9000" in shown


def test_a_one_field_path_counts_only_where_the_filled_struct_is_named():
    """``Config{Port}`` filled by viper: ``cfg.Port`` in a file that names ``Config`` is the setting; ``srv.Port``
    in a file that never names it is another struct's field."""
    setup = (_IMPORT + "type Config struct {\n\tPort string\n}\n\n"
             'func Load() Config {\n\tviper.SetDefault("port", "8080")\n\tvar c Config\n'
             "\t_ = viper.Unmarshal(&c)\n\treturn c\n}\n")
    found = read_viper({"config.go": setup})
    assert found is not None
    assert keys_read("func Run(cfg Config) {\n\tlisten(cfg.Port)\n}\n", found) == [("port", "Port", 2)]
    assert keys_read("func Dial(srv Server) {\n\tdial(srv.Port)\n}\n", found) == []


_SERVICE_CONFIG = """package config

import (
	"flag"
	"fmt"
	"os"

	"example.com/shop/pkg/queue"
	"github.com/spf13/viper"
)

var configPath string

func init() {
	flag.StringVar(&configPath, "config", "", "config path")
}

type Config struct {
	HTTP  Http          `mapstructure:"http"`
	Queue *queue.Config `mapstructure:"queue"`
}

type Http struct {
	Prefix string `mapstructure:"ordersPrefix"`
}

func Load() (*Config, error) {
	if configPath == "" {
		wd, _ := os.Getwd()
		configPath = fmt.Sprintf("%s/{svc}/config/config.yaml", wd)
	}
	cfg := &Config{}
	viper.SetConfigFile(configPath)
	if err := viper.ReadInConfig(); err != nil {
		return nil, err
	}
	err := viper.Unmarshal(cfg)
	return cfg, err
}
"""

_SERVICE_MAIN = """package main

import (
	"fmt"

	"example.com/shop/{svc}/config"
)

func main() {
	cfg, _ := config.Load()
	fmt.Println(cfg.HTTP.Prefix, cfg.Queue.Group)
}
"""


def test_each_service_reads_its_own_config_struct_and_the_file_its_fallback_path_names(tmp_path: Path):
    """Two services of one module, each with a ``config`` package declaring its own ``Config`` (a pointer handed to
    ``Unmarshal``, a field typed from a shared package), each reading the file a ``--config`` flag names, else the
    path its code builds (``fmt.Sprintf("%s/<svc>/config/config.yaml", wd)``): each lists the values of its own
    file only."""
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "pkg/queue/config.go": "package queue\n\ntype Config struct {\n\tGroup string `mapstructure:\"groupID\"`\n}\n",
        "docker-compose.yaml": "services:\n"
        + "".join(f"  {svc}:\n    build: {{context: ., dockerfile: {svc}.Dockerfile}}\n" for svc in ("orders", "stock")),
    }
    for svc in ("orders", "stock"):
        files[f"{svc}/config/config.go"] = _SERVICE_CONFIG.replace("{svc}", svc)
        files[f"{svc}/cmd/main.go"] = _SERVICE_MAIN.replace("{svc}", svc)
        files[f"{svc}/config/config.yaml"] = f"http:\n  ordersPrefix: /api/{svc}\nqueue:\n  groupID: {svc}-group\n"
        files[f"{svc}.Dockerfile"] = (f"FROM golang:1.21\nCOPY . /app\nWORKDIR /app\n"
                                      f"RUN go build -o /bin/app ./{svc}/cmd/main.go\n")
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    nodes, _ = CodeGraph.build(tmp_path).snapshot()
    config = {n.name: "\n".join(n.props.get("config", [])) for n in nodes.values() if n.kind == "microservice"}
    assert ("http.ordersprefix: no default in the code; config file orders/config/config.yaml:2 sets /api/orders; "
            "read as HTTP.Prefix (orders/cmd/main.go:11)") in config["orders"]
    assert "config file orders/config/config.yaml:4 sets orders-group; read as Queue.Group" in config["orders"]
    assert "config file stock/config/config.yaml:2 sets /api/stock" in config["stock"]
    assert "/api/stock" not in config["orders"] and "orders-group" not in config["stock"]


def test_a_config_file_held_in_a_variable_without_a_path_in_the_code_is_no_file_read(tmp_path: Path):
    (tmp_path / "config.yaml").write_text("http:\n  port: 80\n")
    setup = (_IMPORT + "type Config struct {\n\tHTTP struct {\n\t\tPort int\n\t}\n}\n\n"
             "func Load(path string) *Config {\n\tcfg := new(Config)\n\tviper.SetConfigFile(path)\n"
             "\t_ = viper.Unmarshal(cfg)\n\treturn cfg\n}\n")
    found = read_viper({"config.go": setup}, tmp_path)
    assert found is not None
    assert found.paths == {"HTTP.Port": "http.port"} and found.files == {}
