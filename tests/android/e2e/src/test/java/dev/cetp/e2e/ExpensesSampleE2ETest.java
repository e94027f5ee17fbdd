package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.os.Bundle;
import dev.cetp.e2e.category.ExpensesBundle;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ToolReply;
// Internal: discovery as a whole, the admin state asserted on, the JVM and bundle setup.
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.testkit.internal.V1ClientRules;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The expenses sample ({@code samples/expenses}) end to end through its host bundle: argument
 * schemas with enums, ranges, a nested date range and an optional filter object with a list,
 * aggregations over the sample's deterministic ledger ({@code samples/expenses/src/ledger.rs},
 * two years from a fixed seed), and a tool that refuses limited callers. Expected values come
 * from that ledger ({@code cargo run -p cetp-sample-expenses --example ask_expenses}; rent is 1250
 * € on the first of every month). Runs in {@code bundle-expenses}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(ExpensesBundle.class)
public class ExpensesSampleE2ETest extends SampleSuite {
  static final String PACKAGE = "dev.cetp.samples.expenses";
  static final String AUTHORITY = "dev.cetp.samples.expenses.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final List<String> TOOLS =
      List.of("spending_by_category", "spending_over_time", "top_merchants", "export_expenses");
  static final List<String> CATEGORIES =
      List.of(
          "groceries", "dining", "transport", "housing", "utilities", "health", "entertainment",
          "shopping", "travel");
  static final String SCOPE_DESCRIPTION = "your expenses: amounts, dates, merchants";

  static final String MARCH_2025 = "{\"from\":\"2025-03-01\",\"to\":\"2025-03-31\"}";
  static final String YEAR_2025 = "{\"from\":\"2025-01-01\",\"to\":\"2025-12-31\"}";

  /** spending_by_category over March 2025, as serialized by the provider. */
  static final String MARCH_BY_CATEGORY =
      "{\"total\":3001.73,\"count\":38,\"categories\":["
          + "{\"category\":\"housing\",\"total\":1250.0,\"count\":1,\"share_percent\":41.6},"
          + "{\"category\":\"groceries\",\"total\":795.06,\"count\":14,\"share_percent\":26.4},"
          + "{\"category\":\"shopping\",\"total\":496.74,\"count\":5,\"share_percent\":16.5},"
          + "{\"category\":\"transport\",\"total\":164.62,\"count\":9,\"share_percent\":5.4},"
          + "{\"category\":\"dining\",\"total\":111.21,\"count\":5,\"share_percent\":3.7},"
          + "{\"category\":\"utilities\",\"total\":100.53,\"count\":1,\"share_percent\":3.3},"
          + "{\"category\":\"entertainment\",\"total\":77.5,\"count\":2,\"share_percent\":2.5},"
          + "{\"category\":\"health\",\"total\":6.07,\"count\":1,\"share_percent\":0.2}]}";

  /** The agent asks for the expenses scope (refused, recorded); the user approves it. */
  private void approveAgent(Approval approval) {
    agent
        .call("spending_by_category", "{\"range\":" + MARCH_2025 + "}")
        .assertError("AUTH_REQUIRED");
    agent.approvePending(approval);
  }

  private static String range(String from, String to) {
    return "{\"from\":\"" + from + "\",\"to\":\"" + to + "\"}";
  }

  // ----------------------------------------------------------------------------------------
  // The bundle, discovery, provider info, tools

  @Test
  public void jvmIsConfiguredAndDiscoveryFindsTheAuthority() {
    TestJvm.requireConfigured();
    assertEquals("expenses", bundle().name());
    assertEquals("cetp_sample_expenses", bundle().nativeLibraryName());
    List<CetpTransport.Discovered> found = new CetpTransport().discover();
    assertEquals(found.toString(), 1, found.size());
    assertEquals(PACKAGE, found.get(0).packageName);
    assertEquals(AUTHORITY, found.get(0).authority);
    assertEquals(1, found.get(0).version);
    assertEquals(Integer.valueOf(1), found.get(0).rawVersion);
  }

  @Test
  public void getProviderInfoDeclaresTheExpensesScope() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      JSONObject info = r.jsonObject();
      assertEquals(List.of("description", "provider_name", "scopes"), sorted(keys(info)));
      assertEquals("Expenses", info.getString("provider_name"));
      assertEquals(
          "The user's spending: totals per category, over time and per merchant",
          info.getString("description"));
      JSONArray scopes = info.getJSONArray("scopes");
      assertEquals(1, scopes.length());
      assertEquals("expenses.read", scopes.getJSONObject(0).getString("name"));
      assertEquals(SCOPE_DESCRIPTION, scopes.getJSONObject(0).getString("description"));
    }
  }

  @Test
  public void listToolsShowsEnumsRangesAndNestedObjectsInline() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_LIST_TOOLS, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      JSONArray tools = r.tools();
      List<String> names = new ArrayList<>();
      for (int i = 0; i < tools.length(); i++) {
        JSONObject tool = tools.getJSONObject(i);
        names.add(tool.getString("name"));
        V1ClientRules.assertToolFields(tool);
        assertFalse(tool.getString("description").trim().isEmpty());
        JSONObject params = tool.getJSONObject("parameters");
        assertEquals("object", params.getString("type"));
        assertFalse(params.getBoolean("additionalProperties"));
        assertFalse(params.toString(), params.toString().contains("$ref"));
        JSONObject props = params.getJSONObject("properties");
        assertRange(props.getJSONObject("range"));
        assertFilter(props.getJSONObject("filter"));
      }
      assertEquals(TOOLS, names);

      JSONObject byCategory = tools.getJSONObject(0).getJSONObject("parameters");
      assertEquals(List.of("filter", "range"), sorted(keys(byCategory.getJSONObject("properties"))));
      assertEquals(List.of("range"), strings(byCategory.getJSONArray("required")));

      JSONObject overTime = tools.getJSONObject(1).getJSONObject("parameters");
      assertEquals(List.of("filter", "period", "range"), sorted(keys(overTime.getJSONObject("properties"))));
      assertEquals(List.of("range", "period"), strings(overTime.getJSONArray("required")));
      JSONObject period = overTime.getJSONObject("properties").getJSONObject("period");
      assertEquals("string", period.getString("type"));
      assertEquals(List.of("day", "week", "month"), strings(period.getJSONArray("enum")));
      // The variants' doc comments are appended to the description.
      assertTrue(period.getString("description"), period.getString("description").startsWith("The length of each period. Values: \"day\" = One total per day;"));

      JSONObject top = tools.getJSONObject(2).getJSONObject("parameters");
      assertEquals(List.of("filter", "limit", "range"), sorted(keys(top.getJSONObject("properties"))));
      assertEquals(List.of("range"), strings(top.getJSONArray("required")));
      JSONObject limit = top.getJSONObject("properties").getJSONObject("limit");
      assertEquals("integer", limit.getString("type"));
      assertEquals(1, limit.getInt("minimum"));
      assertEquals(25, limit.getInt("maximum"));
    }
  }

  private static void assertRange(JSONObject range) throws Exception {
    assertEquals("object", range.getString("type"));
    assertEquals(List.of("from", "to"), strings(range.getJSONArray("required")));
    assertFalse(range.getBoolean("additionalProperties"));
    for (String day : new String[] {"from", "to"}) {
      JSONObject d = range.getJSONObject("properties").getJSONObject(day);
      assertEquals("string", d.getString("type"));
      assertEquals("date", d.getString("format"));
    }
  }

  private static void assertFilter(JSONObject filter) throws Exception {
    assertEquals("object", filter.getString("type"));
    assertFalse(filter.getBoolean("additionalProperties"));
    assertFalse(filter.has("required") && filter.getJSONArray("required").length() > 0);
    JSONObject props = filter.getJSONObject("properties");
    assertEquals(List.of("categories", "max_amount", "merchant", "min_amount"), sorted(keys(props)));
    JSONObject categories = props.getJSONObject("categories");
    assertEquals("array", categories.getString("type"));
    assertEquals(1, categories.getInt("minItems"));
    assertEquals(9, categories.getInt("maxItems"));
    assertEquals("string", categories.getJSONObject("items").getString("type"));
    assertEquals(CATEGORIES, strings(categories.getJSONObject("items").getJSONArray("enum")));
    for (String amount : new String[] {"min_amount", "max_amount"}) {
      JSONObject a = props.getJSONObject(amount);
      assertEquals("number", a.getString("type"));
      assertEquals(0.0, a.getDouble("minimum"), 0.0);
      assertEquals(1_000_000.0, a.getDouble("maximum"), 0.0);
    }
    JSONObject merchant = props.getJSONObject("merchant");
    assertEquals("string", merchant.getString("type"));
    assertEquals(1, merchant.getInt("minLength"));
    assertEquals(64, merchant.getInt("maxLength"));
  }

  // ----------------------------------------------------------------------------------------
  // Authorization

  @Test
  public void everyToolAnswersAuthRequiredBeforeApproval() throws Exception {
    String[][] calls = {
      {"spending_by_category", "{\"range\":" + MARCH_2025 + "}"},
      {"spending_over_time", "{\"range\":" + MARCH_2025 + ",\"period\":\"week\"}"},
      {"top_merchants", "{\"range\":" + MARCH_2025 + "}"},
      {"top_merchants", "{\"range\":\"March\"}"}, // not validated before approval
    };
    for (String[] call : calls) {
      for (CallForm form : CallForm.values()) {
        ToolReply r = agent.call(form, call[0], call[1]);
        assertError(r, "AUTH_REQUIRED", "`expenses.read`", AGENT);
        assertEquals("Open Expenses (" + PACKAGE + ") and allow com.example.agent to read: " + SCOPE_DESCRIPTION, r.resolutionHint());
        assertEquals(AUTHORIZE, r.authorizeIntent());
      }
    }
    JSONObject request = ConsentAdmin.pendingFrom(agent.uid());
    assertEquals(1, request.getJSONArray("scopes").length());
    assertEquals("expenses.read", request.getJSONArray("scopes").getJSONObject(0).getString("name"));
    assertEquals(AGENT, request.getJSONArray("packages").getJSONObject(0).getString("name"));
  }

  // ----------------------------------------------------------------------------------------
  // Every tool, approved with full access

  @Test
  public void spendingByCategoryTotalsAMonthLargestFirst() throws Exception {
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(form, "spending_by_category", "{\"range\":" + MARCH_2025 + "}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(MARCH_BY_CATEGORY, r.data());
    }
    // The widest range: the whole ledger (731 days, 2024 and 2025).
    JSONObject all = new JSONObject(data("spending_by_category", "{\"range\":" + range("2024-01-01", "2025-12-31") + "}"));
    assertEquals(72088.14, all.getDouble("total"), 0.0);
    assertEquals(919, all.getInt("count"));
    JSONArray categories = all.getJSONArray("categories");
    assertEquals(9, categories.length());
    assertEquals(
        "{\"category\":\"housing\",\"total\":30000,\"count\":24,\"share_percent\":41.6}",
        categories.getJSONObject(0).toString());
    assertEquals("health", categories.getJSONObject(8).getString("category"));
    assertEquals(797.98, categories.getJSONObject(8).getDouble("total"), 0.0);
    // A range without expenses.
    assertEquals(
        "{\"total\":0.0,\"count\":0,\"categories\":[]}",
        data("spending_by_category", "{\"range\":" + range("2023-01-01", "2023-12-31") + "}"));
  }

  @Test
  public void filtersCombineCategoriesAmountsAndMerchants() throws Exception {
    approveAgent(Approval.full());
    assertEquals(
        "{\"total\":818.3,\"count\":13,\"categories\":["
            + "{\"category\":\"groceries\",\"total\":728.83,\"count\":10,\"share_percent\":89.0},"
            + "{\"category\":\"dining\",\"total\":89.47,\"count\":3,\"share_percent\":10.9}]}",
        data(
            "spending_by_category",
            "{\"range\":" + MARCH_2025 + ",\"filter\":{\"categories\":[\"dining\",\"groceries\"],\"min_amount\":20}}"));
    // Every category listed is the same as no category filter.
    JSONArray every = new JSONArray(CATEGORIES);
    assertEquals(
        MARCH_BY_CATEGORY,
        data("spending_by_category", "{\"range\":" + MARCH_2025 + ",\"filter\":{\"categories\":" + every + "}}"));
    // An empty filter object is no filter; null optionals are absent.
    assertEquals(MARCH_BY_CATEGORY, data("spending_by_category", "{\"range\":" + MARCH_2025 + ",\"filter\":{}}"));
    assertEquals(MARCH_BY_CATEGORY, data("spending_by_category", "{\"range\":" + MARCH_2025 + ",\"filter\":null}"));
    // Amount bounds, both included: exactly the 1250 € rent.
    assertEquals(
        "{\"total\":1250.0,\"count\":1,\"categories\":[{\"category\":\"housing\",\"total\":1250.0,\"count\":1,\"share_percent\":100.0}]}",
        data("spending_by_category", "{\"range\":" + MARCH_2025 + ",\"filter\":{\"min_amount\":1250,\"max_amount\":1250}}"));
  }

  @Test
  public void spendingOverTimeListsEveryIsoWeekMonthAndDay() throws Exception {
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(
              form,
              "spending_over_time",
              "{\"range\":" + range("2025-01-01", "2025-01-31") + ",\"period\":\"week\"}");
      assertTrue(form + ": " + r, r.isSuccess());
      // ISO weeks: 2025-W01 starts on Monday 2024-12-30 but counts only January's days.
      assertEquals(
          "[{\"period\":\"2025-W01\",\"starts\":\"2024-12-30\",\"total\":1418.14,\"count\":7},"
              + "{\"period\":\"2025-W02\",\"starts\":\"2025-01-06\",\"total\":498.0,\"count\":11},"
              + "{\"period\":\"2025-W03\",\"starts\":\"2025-01-13\",\"total\":646.87,\"count\":14},"
              + "{\"period\":\"2025-W04\",\"starts\":\"2025-01-20\",\"total\":257.81,\"count\":5},"
              + "{\"period\":\"2025-W05\",\"starts\":\"2025-01-27\",\"total\":185.35,\"count\":7}]",
          r.data());
    }
    // Days, a day without spending listed with 0.
    assertEquals(
        "[{\"period\":\"2025-03-01\",\"starts\":\"2025-03-01\",\"total\":1417.84,\"count\":3},"
            + "{\"period\":\"2025-03-02\",\"starts\":\"2025-03-02\",\"total\":26.46,\"count\":1},"
            + "{\"period\":\"2025-03-03\",\"starts\":\"2025-03-03\",\"total\":0.0,\"count\":0},"
            + "{\"period\":\"2025-03-04\",\"starts\":\"2025-03-04\",\"total\":78.19,\"count\":1},"
            + "{\"period\":\"2025-03-05\",\"starts\":\"2025-03-05\",\"total\":63.04,\"count\":1}]",
        data("spending_over_time", "{\"range\":" + range("2025-03-01", "2025-03-05") + ",\"period\":\"day\"}"));
    // Months of 2024, housing only: the rent, every month.
    JSONArray months =
        new JSONArray(
            data(
                "spending_over_time",
                "{\"range\":" + range("2024-01-01", "2024-12-31") + ",\"period\":\"month\",\"filter\":{\"categories\":[\"housing\"]}}"));
    assertEquals(12, months.length());
    for (int m = 0; m < 12; m++) {
      String label = String.format("2024-%02d", m + 1);
      assertEquals(
          "{\"period\":\"" + label + "\",\"starts\":\"" + label + "-01\",\"total\":1250,\"count\":1}",
          months.getJSONObject(m).toString());
    }
    // A leap day exists in 2024.
    assertEquals(29, new JSONArray(data("spending_over_time", "{\"range\":" + range("2024-02-01", "2024-02-29") + ",\"period\":\"day\"}")).length());
  }

  @Test
  public void topMerchantsRanksAndLimits() throws Exception {
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(form, "top_merchants", "{\"range\":" + YEAR_2025 + ",\"limit\":3}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(
          "[{\"merchant\":\"Rent — Foncia\",\"category\":\"housing\",\"total\":15000.0,\"count\":12},"
              + "{\"merchant\":\"Carrefour\",\"category\":\"groceries\",\"total\":2232.29,\"count\":37},"
              + "{\"merchant\":\"Marché Saint-Martin\",\"category\":\"groceries\",\"total\":2120.46,\"count\":44}]",
          r.data());
    }
    // Default limit: 5.
    assertEquals(
        "[{\"merchant\":\"Rent — Foncia\",\"category\":\"housing\",\"total\":1250.0,\"count\":1},"
            + "{\"merchant\":\"IKEA\",\"category\":\"shopping\",\"total\":403.21,\"count\":3},"
            + "{\"merchant\":\"Carrefour\",\"category\":\"groceries\",\"total\":280.59,\"count\":4},"
            + "{\"merchant\":\"Lidl\",\"category\":\"groceries\",\"total\":218.02,\"count\":4},"
            + "{\"merchant\":\"Marché Saint-Martin\",\"category\":\"groceries\",\"total\":208.36,\"count\":5}]",
        data("top_merchants", "{\"range\":" + MARCH_2025 + "}"));
    JSONArray five = new JSONArray(data("top_merchants", "{\"range\":" + YEAR_2025 + "}"));
    assertEquals(5, five.length());
    assertEquals("Bio c' Bon", five.getJSONObject(4).getString("merchant"));
    // The upper bound of limit, with fewer merchants than that in the range.
    JSONArray many = new JSONArray(data("top_merchants", "{\"range\":" + YEAR_2025 + ",\"limit\":25}"));
    assertEquals(25, many.length());
    double previous = Double.MAX_VALUE;
    for (int i = 0; i < many.length(); i++) {
      double total = many.getJSONObject(i).getDouble("total");
      assertTrue(many.toString(), total <= previous);
      previous = total;
    }
  }

  @Test
  public void nonAsciiMerchantFiltersMatchCaseInsensitivelyAndRoundTrip() throws Exception {
    approveAgent(Approval.full());
    assertEquals(
        "[{\"merchant\":\"Café de Flore\",\"category\":\"dining\",\"total\":530.49,\"count\":17}]",
        data("top_merchants", "{\"range\":" + YEAR_2025 + ",\"filter\":{\"merchant\":\"CAFÉ\"}}"));
    assertEquals(
        "[{\"merchant\":\"Sushi Kyō\",\"category\":\"dining\",\"total\":92.46,\"count\":4}]",
        data("top_merchants", "{\"range\":" + range("2025-01-01", "2025-03-31") + ",\"filter\":{\"merchant\":\"kyō\"}}"));
    // An em dash in the filter, JSON-escaped or not.
    String rent = "[{\"merchant\":\"Rent — Foncia\",\"category\":\"housing\",\"total\":3750.0,\"count\":3}]";
    assertEquals(rent, data("top_merchants", "{\"range\":" + range("2025-01-01", "2025-03-31") + ",\"filter\":{\"merchant\":\"Rent — Foncia\"}}"));
    assertEquals(rent, data("top_merchants", "{\"range\":" + range("2025-01-01", "2025-03-31") + ",\"filter\":{\"merchant\":\"t \\u2014 F\"}}"));
    // Unmatched text: nothing, not an error.
    assertEquals("[]", data("top_merchants", "{\"range\":" + YEAR_2025 + ",\"filter\":{\"merchant\":\"🍣\"}}"));
  }

  // ----------------------------------------------------------------------------------------
  // Limited access

  @Test
  public void aLimitedCallerGetsTotalsButNoMerchants() throws Exception {
    approveAgent(Approval.limited());
    assertEquals("limited", ConsentAdmin.grants().getJSONObject(0).getString("access"));
    assertEquals(MARCH_BY_CATEGORY, data("spending_by_category", "{\"range\":" + MARCH_2025 + "}"));
    assertEquals(
        5,
        new JSONArray(data("spending_over_time", "{\"range\":" + range("2025-01-01", "2025-01-31") + ",\"period\":\"week\"}")).length());
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(form, "top_merchants", "{\"range\":" + MARCH_2025 + "}");
      assertError(r, "PERMISSION_DENIED");
      assertEquals(
          "the user shares totals but not merchant names with this app; use `spending_by_category` or"
              + " `spending_over_time` instead",
          r.errorMessage());
    }
  }

  // ----------------------------------------------------------------------------------------
  // Errors (approved agent)

  @Test
  public void rangesAndAmountsTheSchemaCannotCheckAreExplained() {
    approveAgent(Approval.full());
    for (String tool : TOOLS) {
      String period = tool.equals("spending_over_time") ? ",\"period\":\"month\"" : "";
      ToolReply reversed = run(tool, "{\"range\":" + range("2025-03-31", "2025-03-01") + period + "}");
      assertError(reversed, "INVALID_ARGS");
      assertEquals(
          "`range.from` (2025-03-31) is after `range.to` (2025-03-01); send the earlier day as `from`",
          reversed.errorMessage());
      ToolReply wide = run(tool, "{\"range\":" + range("2024-01-01", "2026-01-01") + period + "}");
      assertError(wide, "INVALID_ARGS");
      assertEquals(
          "the range 2024-01-01 to 2026-01-01 spans 732 days; ask for at most 731 days (two years) per call",
          wide.errorMessage());
      ToolReply amounts =
          run(tool, "{\"range\":" + MARCH_2025 + period + ",\"filter\":{\"min_amount\":50,\"max_amount\":20}}");
      assertError(amounts, "INVALID_ARGS");
      assertEquals(
          "`filter.min_amount` (50) is above `filter.max_amount` (20); swap them or drop one",
          amounts.errorMessage());
    }
  }

  @Test
  public void argumentsOutsideTheSchemaAreInvalid() {
    approveAgent(Approval.full());
    String m = "{\"range\":" + MARCH_2025;
    String[][] cases = {
      // tool, args, path or word the message must mention
      {"spending_by_category", "{}", "\"range\""},
      {"spending_by_category", "{\"range\":\"2025-03\"}", "`/range`"},
      {"spending_by_category", "{\"range\":{\"from\":\"2025-03-01\"}}", "\"to\""},
      {"spending_by_category", "{\"range\":" + range("2025-02-29", "2025-03-01") + "}", "`/range/from`"},
      {"spending_by_category", "{\"range\":" + range("2025/03/01", "2025-03-31") + "}", "`/range/from`"},
      {"spending_by_category", "{\"range\":" + range("2025-03-01", "31.03.2025") + "}", "`/range/to`"},
      {"spending_by_category", "{\"range\":{\"from\":\"2025-03-01\",\"to\":\"2025-03-31\",\"tz\":\"UTC\"}}", "tz"},
      {"spending_by_category", m + ",\"filter\":{\"categories\":[\"pets\"]}}", "`/filter/categories/0`"},
      {"spending_by_category", m + ",\"filter\":{\"categories\":[\"Dining\"]}}", "`/filter/categories/0`"},
      {"spending_by_category", m + ",\"filter\":{\"categories\":[]}}", "`/filter/categories`"},
      {"spending_by_category", m + ",\"filter\":{\"categories\":\"dining\"}}", "`/filter/categories`"},
      {"spending_by_category", m + ",\"filter\":{\"categories\":" + new JSONArray(CATEGORIES).put("dining") + "}}", "`/filter/categories`"},
      {"spending_by_category", m + ",\"filter\":{\"min_amount\":-1}}", "`/filter/min_amount`"},
      {"spending_by_category", m + ",\"filter\":{\"max_amount\":1000000.01}}", "`/filter/max_amount`"},
      {"spending_by_category", m + ",\"filter\":{\"min_amount\":\"20\"}}", "`/filter/min_amount`"},
      {"spending_by_category", m + ",\"filter\":{\"merchant\":\"\"}}", "`/filter/merchant`"},
      {"spending_by_category", m + ",\"filter\":{\"currency\":\"USD\"}}", "currency"},
      {"spending_by_category", m + ",\"period\":\"month\"}", "period"},
      {"spending_over_time", m + "}", "\"period\""},
      {"spending_over_time", m + ",\"period\":\"year\"}", "`/period`"},
      {"spending_over_time", m + ",\"period\":\"Week\"}", "`/period`"},
      {"spending_over_time", m + ",\"period\":1}", "`/period`"},
      {"top_merchants", m + ",\"limit\":0}", "`/limit`"},
      {"top_merchants", m + ",\"limit\":26}", "`/limit`"},
      {"top_merchants", m + ",\"limit\":\"5\"}", "`/limit`"},
      {"top_merchants", m + ",\"limit\":2.5}", "`/limit`"},
      {"top_merchants", "{\"limit\":5}", "\"range\""},
    };
    for (String[] c : cases) {
      ToolReply r = run(c[0], c[1]);
      assertError(r, "INVALID_ARGS", "invalid arguments for `" + c[0] + "`", c[2]);
    }
  }

  @Test
  public void unknownToolsAreToolNotFound() {
    for (CallForm form : CallForm.values()) {
      assertError(
          agent.call(form, "delete_expense", "{}"),
          "TOOL_NOT_FOUND",
          "delete_expense");
    }
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      assertError(
          agent.call(form, "spending_by_merchant", "{\"range\":" + MARCH_2025 + "}"),
          "TOOL_NOT_FOUND",
          "spending_by_merchant");
    }
  }
}
