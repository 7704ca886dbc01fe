/**
 * Java and Kotlin code and JVM templates (src/i18n/frameworks/jvm.ts): the keys of Spring's
 * `messages.properties` and of `ResourceBundle`s as code and JSP / Thymeleaf templates name them.
 */
import { strict as assert } from 'node:assert';
import { findUsages } from '../../src/i18n/usages';
import { loadI18nIndex } from '../../src/i18n/workspace';
import { MemoryFileSource } from '../../src/workspace/source';

/** `line:col via key=text at the range` of each usage (columns 1-based). */
function usages(rel: string, text: string): string[] {
  return findUsages(rel, text).map((u) => `${u.range.start.line}:${u.range.start.column + 1} ${u.via} ${u.key}${u.dynamic ? '*' : ''}=${text.slice(u.range.start.offset, u.range.end.offset)}`);
}

describe('i18n: Java / Kotlin bundles and JVM templates', function () {
  it('code: MessageSource.getMessage, getText, a bundle’s getString, Bean Validation messages, Android R.string; other getString calls and comments are not', function () {
    const java = [
      'String a = messageSource.getMessage("user.greeting", new Object[] { name }, locale);',
      'String b = bundle.getString("menu.file");',
      'String c = ResourceBundle.getBundle("messages").getString("x.y");',
      'String d = json.getString("name");',
      'String e = rs.getString("column");',
      '@NotBlank(message = "{user.name.required}")',
      '// messages.getString("commented")',
      'String f = getText("login.title") + getString(R.string.app_name);',
    ].join('\n');
    assert.deepEqual(usages('src/main/java/com/acme/UserController.java', java), [
      '1:38 getMessage user.greeting=user.greeting',
      '2:30 getString menu.file=menu.file',
      '6:23 message = "{}" user.name.required=user.name.required',
      '8:21 getText login.title=login.title',
      '8:56 R.string app_name=app_name',
    ]);
    const kt = 'val t = messages.getMessage("order.$state", null, locale)\nval u = resources.getString("a.b")\n';
    assert.deepEqual(usages('src/main/kotlin/Orders.kt', kt), ['1:30 getMessage order.*=order.$state', '2:30 getString a.b=a.b']);
  });

  it('templates: JSTL fmt:message, spring:message, Struts s:text in JSP; Thymeleaf #{…} in HTML beside the other template rules; comments are not', function () {
    const jsp = [
      '<h1><fmt:message key="home.title"/></h1>',
      '<%-- <fmt:message key="commented"/> --%>',
      "<button><spring:message code='action.save' text='Save'/></button>",
      '<s:text name="login.user"/>',
    ].join('\n');
    assert.deepEqual(usages('src/main/webapp/WEB-INF/views/home.jsp', jsp), ['1:23 <fmt:message> home.title=home.title', '3:31 <spring:message> action.save=action.save', '4:15 <s:text> login.user=login.user']);
    const html = '<p th:text="#{home.welcome(${user.name})}">Welcome</p>\n<!-- #{commented} -->\n<span th:text="#{cart.empty}"></span>';
    assert.deepEqual(usages('src/main/resources/templates/home.html', html), ['1:15 #{} home.welcome=home.welcome', '3:18 #{} cart.empty=cart.empty']);
  });

  it("Spring Boot's messages.properties: a French text finds the key in both bundles, the controller and the Thymeleaf template", function () {
    const files = {
      'src/main/resources/messages.properties': 'cart.empty=Your cart is empty\nhome.welcome=Welcome, {0}!\n',
      'src/main/resources/messages_fr.properties': 'cart.empty=Votre panier est vide\nhome.welcome=Bienvenue, {0} !\n',
      'src/main/java/com/acme/CartController.java': 'class CartController {\n  String empty() {\n    return messageSource.getMessage("cart.empty", null, locale);\n  }\n}\n',
      'src/main/resources/templates/cart.html': '<div>\n  <span th:text="#{cart.empty}">Your cart is empty</span>\n</div>\n',
    };
    const { index } = loadI18nIndex(new MemoryFileSource(files));
    const c = index.lookupLexical('Votre panier est vide').candidates[0];
    assert.equal(c?.key, 'cart.empty');
    assert.deepEqual(c.locales.map((l) => l.locale).sort(), ['fr', 'und']);
    assert.deepEqual(c.usages.map((u) => `${u.file}:${u.range.start.line}`).sort(), ['src/main/java/com/acme/CartController.java:3', 'src/main/resources/templates/cart.html:2']);
  });
});
