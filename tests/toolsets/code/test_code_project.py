"""Layout: modules from build files, one microservice per multi-module build unless it aggregates
several deployable applications, declared names, skipped folders, Python module names."""

from __future__ import annotations

from pathlib import Path

from graphlore.toolsets.code.layout.layout import detect_layout
from graphlore.toolsets.code.layout.walk import scan

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><artifactId>{name}</artifactId>{modules}{boot}</project>"""
BOOT = "<build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build>"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


def pom(name: str, modules: list[str] = (), boot: bool = False) -> str:
    inner = "".join(f"<module>{m}</module>" for m in modules)
    return POM.format(name=name, modules=f"<modules>{inner}</modules>" if modules else "", boot=BOOT if boot else "")


def layout_of(root: Path):
    return detect_layout(scan(root))


def test_maven_reactor_over_one_app_and_libraries_is_one_service(tmp_path):
    root = write(tmp_path / "shop", {
        "pom.xml": pom("shop", ["core", "api", "app"]),
        "core/pom.xml": pom("shop-core"),
        "api/pom.xml": pom("shop-api"),
        "app/pom.xml": pom("shop-app", boot=True),
        "app/src/main/resources/application.yml": "spring:\n  application:\n    name: shop-service\n",
        "core/src/main/java/a/Core.java": "package a; class Core {}",
    })
    layout = layout_of(root)
    assert list(layout.services) == ["shop-service"]
    service = layout.services["shop-service"]
    assert service.root == "." and sorted(service.modules) == [".", "api", "app", "core"]
    assert service.declared_names == {"spring.application.name": "shop-service", "artifactId": "shop"}
    assert layout.context("core/src/main/java/a/Core.java", "java").microservice == "shop-service"
    assert layout.context("core/src/main/java/a/Core.java", "java").module == "core"


def test_maven_reactor_over_deployable_apps_is_an_aggregator(tmp_path):
    # the piggymetrics layout: a root reactor whose modules are separate Spring Boot applications
    root = write(tmp_path / "system", {
        "pom.xml": pom("system", ["account", "billing", "common"]),
        "account/pom.xml": pom("account", boot=True),
        "account/src/main/resources/bootstrap.yml": "spring:\n  application:\n    name: account-service\n",
        "account/src/test/resources/bootstrap.yml": "spring:\n  application:\n    name: test-name\n",
        "billing/pom.xml": pom("billing"),
        "billing/Dockerfile": "FROM scratch\n",
        "common/pom.xml": pom("common-lib"),
    })
    layout = layout_of(root)
    assert sorted(layout.services) == ["account-service", "billing", "common-lib", "system"]
    assert layout.services["account-service"].deployable and layout.services["billing"].deployable
    assert not layout.services["common-lib"].deployable
    assert layout.services["account-service"].declared_names["spring.application.name"] == "account-service"
    assert layout.services["billing"].name_source == "artifactId"


def test_gradle_settings_include_is_one_service_unless_two_apps(tmp_path):
    one = write(tmp_path / "one", {
        "settings.gradle": "rootProject.name = 'orders'\ninclude 'domain', ':web'\n",
        "build.gradle": "",
        "domain/build.gradle": "",
        "web/build.gradle.kts": 'plugins { id("org.springframework.boot") }\n',
    })
    layout = layout_of(one)
    assert list(layout.services) == ["orders"]
    assert sorted(layout.services["orders"].modules) == [".", "domain", "web"]
    two = write(tmp_path / "two", {
        "settings.gradle.kts": 'include("a", "b")\n',
        "a/build.gradle": "plugins { id 'org.springframework.boot' }\n",
        "b/build.gradle": "plugins { id 'org.springframework.boot' }\n",
    })
    assert sorted(layout_of(two).services) == ["a", "b", "two"]


def test_npm_and_pnpm_workspaces_and_uv_workspace_are_one_service(tmp_path):
    npm = write(tmp_path / "npm", {
        "package.json": '{"name": "web", "workspaces": ["packages/*"]}',
        "packages/ui/package.json": '{"name": "@web/ui"}',
        "packages/app/package.json": '{"name": "@web/app"}',
    })
    layout = layout_of(npm)
    assert list(layout.services) == ["web"]
    assert layout.modules["packages/ui"].name == "@web/ui" and layout.modules["packages/ui"].parent == "."
    pnpm = write(tmp_path / "pnpm", {
        "package.json": '{"name": "mono"}',
        "pnpm-workspace.yaml": "packages:\n  - 'libs/*'\n",
        "libs/x/package.json": '{"name": "x"}',
    })
    assert list(layout_of(pnpm).services) == ["mono"]
    uv = write(tmp_path / "uv", {
        "pyproject.toml": '[project]\nname = "tools"\n[tool.uv.workspace]\nmembers = ["pkgs/*"]\n',
        "pkgs/a/pyproject.toml": '[project]\nname = "tools-a"\n',
    })
    layout = layout_of(uv)
    assert list(layout.services) == ["tools"] and layout.modules["pkgs/a"].parent == "."


def test_top_level_builds_without_a_root_build_are_separate_services(tmp_path):
    root = write(tmp_path / "repo", {
        "services/users/pyproject.toml": '[tool.poetry]\nname = "users"\n',
        "services/mail/setup.cfg": "[metadata]\nname = mail-svc\n",
        "services/web/package.json": '{"name": "web-ui"}',
        "scripts/tool.py": "print(1)\n",
    })
    layout = layout_of(root)
    assert sorted(layout.services) == ["mail-svc", "repo", "users", "web-ui"]
    assert layout.context("scripts/tool.py", "python").microservice == "repo"
    assert layout.context("scripts/tool.py", "python").module == "."


def test_spring_names_placeholders_properties_and_precedence(tmp_path):
    root = write(tmp_path / "svc", {
        "pom.xml": pom("svc-artifact"),
        "src/main/resources/application.properties": "spring.application.name=${APP_NAME:from-default}\n",
        "src/main/resources/application-dev.yml": "spring:\n  application:\n    name: dev-name\n",
    })
    layout = layout_of(root)
    assert list(layout.services) == ["from-default"]
    assert layout.modules["."].spring_name_raw == "${APP_NAME:from-default}"
    write(root, {"src/main/resources/bootstrap.yml": "---\nspring.application.name: boot-name\n"})
    assert list(layout_of(root).services) == ["boot-name"]


def test_walk_skips_output_dependencies_and_virtualenvs(tmp_path):
    root = write(tmp_path / "p", {
        "app/main.py": "x = 1\n",
        "node_modules/lib/index.js": "x\n",
        "target/classes/A.java": "class A {}",
        "build/gen.py": "x\n",
        "env/pyvenv.cfg": "home = /usr\n",
        "env/lib/site.py": "x\n",
        ".git/hooks/h.py": "x\n",
        "web/app.min.js": "x\n",
        "web/types.d.ts": "x\n",
        "web/app.tsx": "x\n",
    })
    assert sorted(scan(root).sources) == ["app/main.py", "web/app.tsx"]


def test_walk_skips_yarn_s_own_files(tmp_path):
    """Yarn (Berry) keeps its release, plugins, editor SDKs and unplugged packages in ``.yarn/`` and writes the Plug'n'Play
    loader ``.pnp.cjs``/``.pnp.loader.mjs``: bundled tool code, never the project's (a release is megabytes whose
    top-level code would be searched as a module's)."""
    root = write(tmp_path / "p", {
        "package.json": '{"name": "shop"}\n',
        ".yarn/releases/yarn-4.1.0.cjs": "module.exports = require('x');\n",
        ".yarn/plugins/@yarnpkg/plugin-workspace-tools.cjs": "module.exports = {};\n",
        ".yarn/sdks/typescript/lib/tsserver.js": "require('typescript');\n",
        ".pnp.cjs": "module.exports = {};\n",
        ".pnp.loader.mjs": "export {};\n",
        "src/cart.ts": "export const cart = 1;\n",
        "src/.prettierrc.js": "module.exports = {};\n",
    })
    assert sorted(scan(root).sources) == ["src/.prettierrc.js", "src/cart.ts"]


def test_python_module_names_follow_package_folders(tmp_path):
    root = write(tmp_path / "proj", {
        "src/pkg/__init__.py": "",
        "src/pkg/sub/__init__.py": "",
        "src/pkg/sub/mod.py": "",
        "tests/test_x.py": "",
    })
    layout = layout_of(root)
    assert layout.context("src/pkg/sub/mod.py", "python").module_name == "pkg.sub.mod"
    assert layout.context("src/pkg/sub/__init__.py", "python").module_name == "pkg.sub"
    test = layout.context("tests/test_x.py", "python")
    assert test.module_name == "test_x" and test.is_test
    assert not layout.context("src/pkg/sub/mod.py", "python").is_test


def test_a_jvm_test_source_set_is_test_code_and_an_app_s_own_tests_named_package_is_not(tmp_path):
    """``src/integration-test/java``, ``src/intTest/kotlin``, ``src/it/java``: Gradle/Maven source sets of tests; an
    application's own ``src/ab_tests`` package (A/B testing, no JVM folder under it) is its code."""
    root = write(tmp_path / "proj", {"pyproject.toml": "[project]\nname = \"exp\"\n", "src/ab_tests/api.py": "",
                                     "src/abTest/view.ts": "", "src/it/it.py": ""})
    layout = layout_of(root)
    assert [layout.context(path, "java").is_test for path in (
        "src/integration-test/java/a/A.java", "src/intTest/kotlin/a/A.kt", "src/it/java/a/A.java",
        "src/main/java/a/A.java")] == [True, True, True, False]
    assert not layout.context("src/ab_tests/api.py", "python").is_test
    assert not layout.context("src/abTest/view.ts", "typescript").is_test
    assert not layout.context("src/it/it.py", "python").is_test


def test_the_walk_reads_no_symlinked_file_or_folder(tmp_path):
    """A symlink inside a project (file or folder, leading out or not) is never followed, so nothing outside
    the project's real folder is read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def leaked():\n    pass\n")
    (outside / "pom.xml").write_text("<project><artifactId>leaked</artifactId></project>")
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def real():\n    pass\n")
    (root / "secret.py").symlink_to(outside / "secret.py")
    (root / "pom.xml").symlink_to(outside / "pom.xml")
    (root / "vendor").symlink_to(outside)
    found = scan(root)
    assert sorted(found.sources) == ["app.py"] and found.layout_files == {}
