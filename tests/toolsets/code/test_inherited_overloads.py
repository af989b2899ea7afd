"""An inherited JAX-RS / Micronaut mapping stays when the class declares an overload of the method (another
signature); it moves to the class's method only when that method overrides it, and goes only when the
overriding method is mapped itself."""

from __future__ import annotations

from pathlib import Path

from helpers.code_tools import write_tree

from graphlore.toolsets.code.index.graph import CodeGraph

BASE = '''package com.acme.common;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

public abstract class CrudEndpoint<T> {
    @POST
    public String create(final T entity) { return ""; }

    @GET
    @Path("/{id}")
    public String findById(@PathParam("id") final Long id) { return ""; }

    @DELETE
    @Path("/{id}")
    public String deleteById(@PathParam("id") final Long id) { return ""; }
}
'''

USERS = '''package com.acme.users;

import com.acme.common.CrudEndpoint;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

@Path("users")
public class UserEndpoint extends CrudEndpoint<User> {
    @GET
    @Path("name/{name}")
    public String findById(@PathParam("name") final String name) { return ""; }

    @Override
    public String create(final User entity) { return ""; }

    @DELETE
    @Path("/remove/{id}")
    public String deleteById(final Long id) { return ""; }
}
'''


def test_an_overload_keeps_the_inherited_mapping_an_override_takes_it(tmp_path: Path):
    root = write_tree(tmp_path, {
        "pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                    "<artifactId>users</artifactId><version>1</version></project>\n"),
        "Dockerfile": "FROM eclipse-temurin:17\n",
        "src/main/java/com/acme/common/CrudEndpoint.java": BASE,
        "src/main/java/com/acme/users/User.java": "package com.acme.users;\n\npublic class User {}\n",
        "src/main/java/com/acme/users/UserEndpoint.java": USERS,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = sorted((p["http_method"], p["path_template"], p["file"].rsplit("/", 1)[-1], p["line"])
                    for p in (n.props for n in nodes.values() if n.kind == "route"))
    assert routes == [
        ("DELETE", "/users/remove/{id}", "UserEndpoint.java", 18),   # the override's own mapping replaces /{id}
        ("GET", "/users/name/{name}", "UserEndpoint.java", 11),      # the overload's own
        ("GET", "/users/{id}", "UserEndpoint.java", 9),             # inherited, not redeclared: at the class
        ("POST", "/users", "UserEndpoint.java", 15),                 # inherited, filed at its override
    ]


STOCK_API = '''package com.acme.stock.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

@Path("/stock")
public interface StockApi {
    @GET
    @Path("/{id}")
    String level(@PathParam("id") long id);
}
'''

STOCK_KT = '''package com.acme.stock

import com.acme.stock.api.StockApi
import jakarta.ws.rs.GET
import jakarta.ws.rs.Path

class StockResource : StockApi {
    override fun level(id: Long): String = ""

    @GET
    @Path("/level/{name}")
    fun level(name: String): String = ""
}
'''


def test_a_kotlin_class_overrides_a_java_interfaces_primitive_parameter(tmp_path: Path):
    root = write_tree(tmp_path, {
        "pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                    "<artifactId>stock</artifactId><version>1</version></project>\n"),
        "Dockerfile": "FROM eclipse-temurin:17\n",
        "src/main/java/com/acme/stock/api/StockApi.java": STOCK_API,
        "src/main/kotlin/com/acme/stock/StockResource.kt": STOCK_KT,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = sorted((p["http_method"], p["path_template"], p["file"].rsplit("/", 1)[-1], p["line"])
                    for p in (n.props for n in nodes.values() if n.kind == "route"))
    assert routes == [("GET", "/stock/level/{name}", "StockResource.kt", 10),   # the overload's own
                      ("GET", "/stock/{id}", "StockResource.kt", 8)]            # the interface's, at its override


JAVA_BASE = '''package com.acme.common;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

public abstract class Base<T> {
    @GET
    @Path("/{id}")
    public String findById(@PathParam("id") Long id) { return ""; }

    @GET
    @Path("/batch")
    public String batch(T[] items) { return ""; }

    @GET
    @Path("/echo")
    public String echo(Object body) { return ""; }
}
'''

JAVA_USERS = '''package com.acme.users;

import com.acme.common.Base;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

@Path("users")
public class Users extends Base<User> {
    @GET
    @Path("/number/{id}")
    public String findById(@PathParam("id") long id) { return ""; }

    @GET
    @Path("/all")
    public String batch(User[] items) { return ""; }
}
'''

KOTLIN_USERS = '''package com.acme.users

import com.acme.common.Base
import jakarta.ws.rs.GET
import jakarta.ws.rs.Path

@Path("kt")
class KtUsers : Base<User>() {
    @GET
    @Path("/say")
    override fun echo(body: Any): String = ""
}
'''


def test_java_boxes_are_overloads_arrays_of_a_type_parameter_and_kotlin_any_override(tmp_path: Path):
    root = write_tree(tmp_path, {
        "pom.xml": ("<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>"
                    "<artifactId>users</artifactId><version>1</version></project>\n"),
        "Dockerfile": "FROM eclipse-temurin:17\n",
        "src/main/java/com/acme/common/Base.java": JAVA_BASE,
        "src/main/java/com/acme/users/User.java": "package com.acme.users;\n\npublic class User {}\n",
        "src/main/java/com/acme/users/Users.java": JAVA_USERS,
        "src/main/kotlin/com/acme/users/KtUsers.kt": KOTLIN_USERS,
    })
    nodes, _ = CodeGraph.build(root).snapshot()
    routes = sorted((p["http_method"], p["path_template"], p["file"].rsplit("/", 1)[-1])
                    for p in (n.props for n in nodes.values() if n.kind == "route"))
    assert routes == [
        ("GET", "/kt/batch", "KtUsers.kt"),             # inherited, not redeclared
        ("GET", "/kt/say", "KtUsers.kt"),               # echo(Any) overrides echo(Object): /kt/echo is gone
        ("GET", "/kt/{id}", "KtUsers.kt"),
        ("GET", "/users/all", "Users.java"),            # batch(User[]) overrides batch(T[]): /users/batch is gone
        ("GET", "/users/echo", "Users.java"),
        ("GET", "/users/number/{id}", "Users.java"),
        ("GET", "/users/{id}", "Users.java"),           # findById(long) is an overload of findById(Long) in Java
    ], routes
